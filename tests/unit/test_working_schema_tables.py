"""The working_schema check also finds the tables that are not dbt models (review of session 5).

`working_schema_results` (macros/publish/working_schema_results.sql) refused working models
built in, or left in, the published schema, found through the graph. The project's per-record
store (`deid_release_records`: true values of suppressed cells), its key (`deid_history_key`:
what links the store to the records) and the line locks are not nodes: left in the published
schema with the working models elsewhere, the check passed. Rendered outside dbt.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.macro_render import macro_caller

ROOT = Path(__file__).resolve().parents[2]


def _node(name: str, schema: str, materialized: str = "table") -> SimpleNamespace:
    return SimpleNamespace(resource_type="model", package_name="dbt_deid", name=name, alias=name,
                           schema=schema, database="release",
                           config={"materialized": materialized})


def _check(in_main: set[str], extra_release: str | None = None) -> list[dict]:
    names = ["deid_input", "deid_suppressed"]
    if extra_release:
        names += [f"{extra_release}__deid_input", f"{extra_release}__deid_suppressed"]
    nodes = {n: _node(n, "main_deid_work") for n in names}
    nodes["deid_published"] = _node("deid_published", "main", "deid_publish")

    def split(name: str):
        return name.split("__", 1) if "__deid_" in name else None

    def context(call):
        return {
            "execute": True,
            "graph": SimpleNamespace(nodes=nodes),
            "adapter": SimpleNamespace(
                get_relation=lambda db, s, n: n if (s == "main" and n in in_main) else None),
            "dbt_deid": _namespace(call, split),
        }
    call = macro_caller(MACROS, context)
    target = SimpleNamespace(database="release", schema="main", identifier="deid_published")
    return call("working_schema_results")(target)


#: working_schema_results.sql and the macros it calls
MACROS = [ROOT / "macros/publish/working_schema_results.sql",
          ROOT / "macros/publish/working_model_sharing.sql",
          ROOT / "macros/releases/publish_node.sql",
          ROOT / "macros/risk/suppressed_patterns_postgres.sql",
          ROOT / "macros/releases/release_sql_header.sql"]


def _split(name: str):
    return name.split("__", 1) if "__deid_" in name else None


def _namespace(call, split=_split) -> SimpleNamespace:
    """The dbt_deid macros working_schema_results.sql's macros call."""
    return SimpleNamespace(_split_release_node=split, **{m: call(m) for m in (
        "_first_names", "_working_model_nodes", "_node_in_schema", "_record_level_first",
        "_working_schema_fix", "is_publish_node", "working_model_sharing",
        "working_model_sharing_message", "_foreign_sql_header", "postgres_hash_joins_header",
        "postgres_work_mem_header")})


@pytest.mark.parametrize("tables", [
    {"deid_release_records"}, {"deid_history_key"}, {"deid_line_locks"},
    # the hierarchy mapping of the published versions (review 8, finding 2): original values
    {"deid_released_hierarchies"},
    {"deid_release_records", "deid_history_key", "deid_line_locks"},
])
def test_the_store_its_key_and_the_locks_left_in_the_published_schema_are_refused(tables) -> None:
    results = _check(tables | {"deid_published"})
    assert len(results) == 1 and results[0]["gate"] == "working_schema"
    assert not results[0]["passed"] and results[0]["failures"] == len(tables)
    for table in tables:
        assert table in results[0]["message"]


def test_an_extra_release_s_own_store_left_in_the_published_schema_is_refused() -> None:
    results = _check({"deid_published", "it_second__deid_release_records"}, "it_second")
    assert results and "it_second__deid_release_records" in results[0]["message"]


def test_the_published_table_alone_passes() -> None:
    assert _check({"deid_published"}, "it_second") == []


class _Refused(Exception):
    pass


def _hook(nodes: dict, selected: list[str], which: str = "run", command: str | None = None,
          histories: frozenset[str] = frozenset()) -> str:
    """check_working_schema_layout (the package's on-run-start hook), rendered outside dbt as
    dbt gives it: ``command`` is invocation_args_dict['invocation_command'] ("dbt <which> ..."
    unless given); ``histories``: the schemas holding a deid_release_history table."""
    def raise_error(message: str):
        raise _Refused(message)

    def get_relation(database: str, schema: str, identifier: str):
        return f"{schema}.{identifier}" if (identifier == "deid_release_history"
                                            and schema in histories) else None

    def context(call):
        return {
            "execute": True, "flags": SimpleNamespace(WHICH=which),
            "invocation_args_dict": {"which": which,
                                     "invocation_command": command or f"dbt {which} -s x"},
            "selected_resources": selected,
            "graph": SimpleNamespace(nodes=nodes),
            "exceptions": SimpleNamespace(raise_compiler_error=raise_error),
            "adapter": SimpleNamespace(get_relation=get_relation),
            "dbt_deid": SimpleNamespace(**vars(_namespace(call)),
                                        retry_invocation=call("default__retry_invocation")),
        }
    call = macro_caller([*MACROS, ROOT / "macros/publish/check_working_schema_layout.sql",
                         ROOT / "macros/releases/retry_invocation.sql"], context)
    return call("default__check_working_schema_layout")()


def _layout(schema: str) -> dict:
    nodes = {n: _node(n, schema) for n in ("deid_suppressed", "deid_input", "deid_patterns",
                                           "it_second__deid_input")}
    nodes["deid_published"] = _node("deid_published", "main", "deid_publish")
    for node in nodes.values():
        node.unique_id = f"model.x.{node.name}"
    return nodes


def test_the_hook_fails_before_a_working_model_is_built_in_the_published_schema() -> None:
    """The on-run-start hook: working models selected into the published schema fail the
    invocation (before any node runs), named record-level first, with the schema and the fix;
    an extra release's working models count too."""
    nodes = _layout("MAIN")  # schemas compare case-insensitively
    with pytest.raises(_Refused) as refused:
        _hook(nodes, [n.unique_id for n in nodes.values()])
    message = str(refused.value)
    assert ("4 working model(s) would be built in release.main, the schema of the published"
            " deid_published: deid_input, it_second__deid_input, deid_suppressed, deid_patterns"
            in message)
    assert "nothing was built" in message and "generate_schema_name" in message
    assert "docs/projects.md" in message


def test_the_hook_passes_a_safe_layout_an_unselected_model_and_other_commands() -> None:
    nodes = _layout("main")
    safe = _layout("main_deid_work")
    assert _hook(safe, [n.unique_id for n in safe.values()]) == ""
    # the publish model alone: left to the publish step's check (working_schema_results)
    assert _hook(nodes, ["model.x.deid_published"]) == ""
    # commands that build no model
    for which in ("compile", "test", "seed", "docs"):
        assert _hook(nodes, [n.unique_id for n in nodes.values()], which) == ""


def test_the_hook_refuses_a_working_schema_holding_a_release_history() -> None:
    """Review 20, F-D: the var deid_work_schema pointed at another line's published schema
    (it holds that line's deid_release_history) passed the hook, which compared the working
    models with this graph's publish schemas only, and the input snapshot and the suppressed
    records were built next to that mart. Refused now, before any node runs, naming the
    schema; a working schema without a history passes."""
    safe = _layout("main_deid_work")
    selected = [n.unique_id for n in safe.values()]
    with pytest.raises(_Refused, match=r"4 working model\(s\) would be built in "
                       r"release\.main_deid_work, which holds a release history"):
        _hook(safe, selected, histories=frozenset({"main_deid_work"}))
    assert _hook(safe, selected, histories=frozenset({"main"})) == ""


def test_the_hook_checks_every_working_model_in_a_retry_as_dbt_gives_it() -> None:
    """`dbt retry` (review 13 final, L1): dbt 1.11 runs the retried command's task (flags.WHICH
    'run', never 'retry') and never sets selected_resources ([] in a fresh process, the
    previous invocation's in a dbtRunner session), so on main (a669ecb) the hook checked no
    working model in a retry. Now every working model counts there."""
    nodes = _layout("main")
    for selected, command in [([], "dbt retry"), ([], "dbt "),
                              (["model.x.deid_published"], "dbt --debug retry")]:
        with pytest.raises(_Refused, match="4 working model"):
            _hook(nodes, selected, "run", command)
    safe = _layout("main_deid_work")
    assert _hook(safe, [], "build", "dbt retry") == ""
    # a model named retry is no retry
    assert _hook(nodes, ["model.x.deid_published"], "run", "dbt run -s retry") == ""


def test_the_hook_finds_a_publish_model_whose_materialization_was_overridden() -> None:
    """Review 8 final, R12: the hook found publish models by `materialized == 'deid_publish'`
    (on 45d0c4e a project's `+materialized: table` on deid_published hid its schema, and the
    working models built there passed the hook); it uses is_publish_node like the rest."""
    nodes = _layout("main")
    nodes["deid_published"].config.update(materialized="table")
    with pytest.raises(_Refused, match="the schema of the published deid_published"):
        _hook(nodes, [n.unique_id for n in nodes.values()])


def _shared(nodes: dict) -> dict:
    """The layout of _layout('main_deid_work') (safe), with a project-wide `+grants` on every
    model and a grant post-hook on deid_suppressed, as dbt resolves them into the graph."""
    for node in nodes.values():
        node.config = {**node.config, "grants": {"select": ["analysts"]}}
    nodes["deid_suppressed"].config["post-hook"] = [{"sql": "grant select on t to analysts"}]
    nodes["deid_published"].config["pre-hook"] = [{"sql": "{{ dbt_deid.refuse_publish_clone() }}"}]
    return nodes


def test_grants_or_hooks_on_working_models_are_refused_by_both_checks() -> None:
    """Review 8, F6: a project-wide `models: +grants` reaches the package's working models
    (original values). The on-run-start hook fails an invocation that selects one, naming it
    with its settings and the fix; the publish step's gate refuses on any working model of the
    graph, selected or not. The publish model's own grants and hook are not counted (also when
    a project overrode its materialization: its name says what it is)."""
    nodes = _shared(_layout("main_deid_work"))
    with pytest.raises(_Refused) as refused:
        _hook(nodes, ["model.x.deid_input", "model.x.deid_published"])
    message = str(refused.value)
    assert "nothing was built: 1 working model(s)" in message
    assert "deid_input (grants)" in message and "deid_suppressed" not in message  # not selected
    assert "models: dbt_deid: publish: +grants" in message
    assert _hook(nodes, ["model.x.deid_published"]) == ""  # left to the publish step

    def context(call):
        return {"execute": True, "graph": SimpleNamespace(nodes=nodes),
                "adapter": SimpleNamespace(get_relation=lambda db, s, n: None),
                "dbt_deid": _namespace(call)}
    call = macro_caller(MACROS, context)
    target = SimpleNamespace(database="release", schema="main", identifier="deid_published")
    results = call("working_schema_results")(target)
    assert len(results) == 1 and not results[0]["passed"] and results[0]["failures"] == 4
    assert ("deid_input (grants), it_second__deid_input (grants), deid_suppressed (grants,"
            " post-hook), deid_patterns (grants)") in results[0]["message"]
    assert "deid_published" not in results[0]["message"].split("original values")[1]
    # a publish model whose materialization a project overrode is still not a working model
    nodes["deid_published"].config.update(materialized="table")
    assert "deid_published (" not in call("working_schema_results")(target)[0]["message"]
    # an empty grant (`+grants: {select: []}`) shares nothing
    for node in nodes.values():
        node.config = {**{k: v for k, v in node.config.items() if not k.endswith("hook")},
                       "grants": {"select": []}}
    assert call("working_schema_results")(target) == []


def test_a_sql_header_on_a_working_model_is_refused_but_the_package_s_own() -> None:
    """Review 8 final, R8: a `+sql_header` runs before a model's create statement like a
    pre-hook and cascades from a project's `models:`; on 45d0c4e the sharing check did not look
    at it. Refused on any working model, except the package's own (the PostgreSQL
    deid_suppressed_patterns' planner settings, every PostgreSQL release model's work_mem: exactly
    that text up to whitespace)."""
    nodes = _layout("main_deid_work")
    for name in ("deid_generalized", "deid_suppressed_patterns"):
        nodes[name] = _node(name, "main_deid_work")
        nodes[name].unique_id = f"model.x.{name}"
    nodes["deid_patterns"].config = {**nodes["deid_patterns"].config,
                                     "sql_header": "grant select on schema x to analysts;"}
    nodes["deid_input"].config = {**nodes["deid_input"].config, "sql_header": "set local"
                                  " enable_mergejoin = off; set local enable_nestloop = off;"
                                  " grant select on schema x to analysts;"}
    work_mem = ("select set_config('work_mem', '512MB', true) where"
                " pg_size_bytes(current_setting('work_mem')) < pg_size_bytes('512MB');\n"
                "select set_config('jit', 'off', true) where current_setting('jit', true)"
                " is not null;")
    own = ("\n  set local enable_mergejoin = off;\nset local   enable_nestloop = off;\n"
           + work_mem + "\n")
    nodes["deid_suppressed"].config = {**nodes["deid_suppressed"].config, "sql_header": own}
    # every PostgreSQL release model's work_mem (session 9): the package's own too
    nodes["deid_generalized"].config = {**nodes["deid_generalized"].config,
                                        "sql_header": "  " + work_mem}
    nodes["deid_suppressed_patterns"].config = {
        **nodes["deid_suppressed_patterns"].config,
        "sql_header": work_mem + " grant select on schema x to analysts;"}
    nodes["it_second__deid_input"].config = {**nodes["it_second__deid_input"].config,
                                             "sql_header": "  "}
    with pytest.raises(_Refused) as refused:
        _hook(nodes, [n.unique_id for n in nodes.values()])
    message = str(refused.value)
    assert "3 working model(s) of dbt_deid (some hold original values)" in message, message
    assert "deid_input (sql_header), deid_patterns (sql_header)" in message
    assert "deid_suppressed_patterns (sql_header)" in message
    assert "deid_suppressed " not in message and "deid_generalized" not in message
    assert "it_second" not in message
    assert "`+sql_header`" in message
