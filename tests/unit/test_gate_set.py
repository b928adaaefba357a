"""The publish step requires the gate set the code of now computes, from a gate table and a plan
of this package (review 12, H1 and L2).

After a package upgrade, `dbt run -s deid_published` read the gate table and the plan an older
dbt_deid had computed from the same settings: the table had no `propagation` row (the gate did
not exist yet) and the plan's propagation pairs were the old resolver's, and the release was
published ("15 gates passed") with 458 rows showing age2 where age was suppressed (13 records
consistent with fewer than k = 5 rows). The cheap control: a whole build, the `propagation` row
deleted from the gate table, a publish-only run: published, "15 gates passed". Now:

* read_gate_table requires a verdict of every gate of release_gate_names (the gates the gate
  table model computes for these settings and the plan's pairs; the model refuses to build when
  it computed others), and refuses a missing one naming it and the command to rebuild;
* the plan and the gate table record the plan format (dbt_deid.settings_schema.PLAN_FORMAT,
  generated into the Jinja settings schema): a plan or a gate table with another number or none
  (built by an older dbt_deid) is refused, and the gate table's package_version is compared.

The macros rendered with Jinja outside dbt (tests/macro_render.py), the gate table written by the
real gate_table_sql and gate_table_binding into DuckDB in memory, the plan by the real glue
function (deid_release_plan) and read by the real release_plan macro.

The pins at the end remind whoever changes the gate set or the resolver's output to bump
PLAN_FORMAT (docs/gate-once.md, "Upgrades").
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import duckdb
import pytest

from dbt_deid.code_digest import CODE_DIGEST
from dbt_deid.dbt_side.glue.release import deid_release_plan
from dbt_deid.settings_schema import PLAN_FORMAT
from tests.macro_render import (
    Rel,
    duckdb_get_relation,
    duckdb_run_query,
    macro_caller,
    raise_compiler_error,
)

ROOT = Path(__file__).resolve().parents[2]
FILES = [ROOT / "macros" / "config" / "settings_schema.sql",
         ROOT / "macros" / "releases" / "release_plan.sql",
         ROOT / "macros" / "gates" / "plan_format.sql",
         ROOT / "macros" / "gates" / "code_digest.sql",
         ROOT / "macros" / "gates" / "release_gate_names.sql",
         ROOT / "macros" / "gates" / "gate_set_note.sql",
         ROOT / "macros" / "gates" / "optional_gates.sql",
         ROOT / "macros" / "gates" / "plan_settings_gate.sql",
         ROOT / "macros" / "gates" / "working_tables_gate.sql",
         ROOT / "macros" / "gates" / "gate_table.sql"]

VERSION = "0.3.0"
INVOCATION = "inv-1"
#: age released at two levels of one source column: the plan's propagation pairs are
#: (age, age20) and (age20, age) (as review 12's age / age2 release)
SETTINGS: dict[str, Any] = {
    "name": "r", "source": "src", "record_id": "rid", "tau": 0.2, "max_suppression": 0.5,
    "quasi_identifiers": {"sex": {"level": 0}, "age": {"hierarchy": "h", "level": 0},
                          "age20": {"column": "age", "hierarchy": "h", "level": 1}},
    "demographics": ["sex"],
    "hierarchical_qis": {"age": {"levels": ["age", "age20"], "generalizes": {"age20": "age"},
                                 "adversary_level": "age"}},
}
PLAIN: dict[str, Any] = {
    "name": "r", "source": "src", "record_id": "rid", "tau": 0.2, "max_suppression": 0.5,
    "quasi_identifiers": {"sex": {"level": 0}, "age": {"level": 0}, "zip": {"level": 0}},
    "combinations": [["sex", "age"], ["age", "zip"]]}
NO_AD = {"distinct_l": None, "entropy_l": None, "recursive_c": None, "t": None}
CFG: dict[str, Any] = {
    "qis": [{"name": "sex", "level": 0}, {"name": "age", "level": 0},
            {"name": "age20", "level": 1}],
    "sensitive": [], "attribute_disclosure": NO_AD}
LEVELS = {"sex": 0, "age": 0, "age20": 1}

#: The gate set of each plan format, every optional gate on (pairs, the four
#: attribute-disclosure models, small areas). Changing the gates release_gate_names lists means
#: a new PLAN_FORMAT and a new entry here (a gate table of the old set must be refused).
GATES_BY_FORMAT = {
    1: ["upstream_built", "input_unchanged", "released_levels", "propagation", "plan_settings",
        "k_anonymity", "exact_k_anonymity", "max_suppression", "column_suppression_cap",
        "row_count", "distinct_l_diversity", "entropy_l_diversity", "recursive_cl_diversity",
        "t_closeness", "small_areas"],
}


def _caller(con: duckdb.DuckDBPyConnection, which: str = "run", small_areas: bool = False,
            settings: dict[str, Any] | None = None):
    node: dict[str, Any] = {}
    run_query, get_relation = duckdb_run_query(con), duckdb_get_relation(con)

    def columns_in(rel: Any) -> list[SimpleNamespace]:
        return [SimpleNamespace(name=r[0]) for r in con.execute(
            "select column_name from information_schema.columns where table_name = ?",
            [rel.identifier]).fetchall()]

    def context(call):
        return {
            "execute": True, "model": node, "flags": SimpleNamespace(WHICH=which),
            "this": SimpleNamespace(identifier="deid_published"),
            "invocation_id": INVOCATION,
            "exceptions": SimpleNamespace(raise_compiler_error=raise_compiler_error),
            "api": SimpleNamespace(Relation=SimpleNamespace(
                create=lambda **kw: Rel(kw["identifier"]))),
            "adapter": SimpleNamespace(
                get_relation=get_relation, get_columns_in_relation=columns_in,
                dispatch=lambda name, package: call("default__" + name)),
            "run_query": run_query, "log": lambda *a, **k: None,
            "tojson": lambda v, sort_keys=False: json.dumps(v, sort_keys=sort_keys),
            "fromjson": json.loads,
            "local_md5": lambda s: hashlib.md5(s.encode()).hexdigest(),
            "dbt": SimpleNamespace(type_string=lambda: "varchar", type_bigint=lambda: "bigint",
                                   type_int=lambda: "integer", type_boolean=lambda: "boolean"),
            "dbt_deid": SimpleNamespace(
                own=lambda m: m, release_settings=lambda: settings or SETTINGS,
                release_node_name=lambda base: base, release_ref=lambda base: Rel(base),
                _in_test=lambda: False,
                literal=lambda v: "'" + str(v).replace("'", "''") + "'",
                settings_schema=call("default__settings_schema"),
                settings_md5=call("settings_md5"),
                release_plan=call("default__release_plan"),
                _read_release_plan=call("_read_release_plan"),
                _compile_only_command=call("_compile_only_command"),
                _release_plan_from_settings=call("_release_plan_from_settings"),
                plan_format=call("default__plan_format"),
                code_digest=call("default__code_digest"),
                package_version=lambda: VERSION,
                release_gate_names=call("default__release_gate_names"),
                optional_gates=call("default__optional_gates"),
                small_areas_enabled=lambda: small_areas,
                plan_settings_problem=call("plan_settings_problem"),
                gate_working_tables_result=call("gate_working_tables_result"),
                working_tables=lambda cfg: [],
                working_tables_fingerprints=lambda cfg: {},
                release_snapshot=lambda: Rel("deid_input"),
                can_inspect=lambda rel: get_relation("db", "main", rel.identifier) is not None,
                table_fingerprint=lambda rel, cols=None: SimpleNamespace(hash="h-" + str(rel),
                                                                         rows=6),
                release_source=lambda cfg: Rel("src"),
                released_source_columns=lambda cfg: ["rid", "sex", "age"],
                checked_levels=lambda cfg: LEVELS,
                gate_table_binding=call("gate_table_binding")),
        }
    return macro_caller(FILES, context)


def _plan(con: duckdb.DuckDBPyConnection, old: bool = False, drop: str | None = None) -> None:
    """main.deid_release_plan as the model writes it for SETTINGS (an older dbt_deid's: without
    the plan_format column and the code digest; `drop`: without that column only)."""
    frame = deid_release_plan(json.dumps(SETTINGS))
    if old:
        frame = frame.drop(columns=["plan_format", "code_digest"])
    if drop:
        frame = frame.drop(columns=[drop])
    con.register("frame", frame)
    con.execute("create or replace table deid_release_plan as select * from frame")


def _gate_table(con: duckdb.DuckDBPyConnection) -> list[str]:
    """main.deid_gate_results as the gate table model writes it: one passing verdict per gate of
    the release's gate set, with the real binding. Returns the gates written."""
    call = _caller(con)
    gates = call("default__release_gate_names")(CFG, call("default__release_plan")("propagation"))
    results = [{"gate": g, "passed": True, "failures": 0, "message": g + " passed"} for g in gates]
    binding = call("gate_table_binding")(
        CFG, Rel("deid_suppressed"), {"hash": "h-main.src"}, {"hash": "h-main.deid_suppressed"},
        LEVELS, {"rows": 6, "hash": "h-main.src"})
    con.execute("create or replace table deid_gate_results as "
                + str(call("gate_table_sql")(results, binding)))
    return gates


@pytest.fixture()
def con() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    _plan(con)
    con.execute("create table src (rid integer, sex varchar, age integer)")
    con.execute("create table deid_suppressed (rid integer)")
    return con


def _read(con: duckdb.DuckDBPyConnection) -> dict[str, Any]:
    """The publish step's reading of the gate table (in the invocation that computed it)."""
    call = _caller(con)
    return call("read_gate_table")(Rel("deid_gate_results"), Rel("deid_suppressed"),
                                   {"rows": 6, "hash": "h-main.src"}, CFG)


def test_a_complete_gate_table_of_this_package_is_read(con) -> None:
    gates = _gate_table(con)
    assert "propagation" in gates
    read = _read(con)
    assert read["status"]["passed"], read["status"]["message"]
    assert [v["gate"] for v in read["verdicts"]] == gates
    assert read["status"]["expected"] == gates
    assert f"with a verdict of each of the {len(gates)} gates this release requires" \
        in read["status"]["message"]
    # the table records the plan format and its gate set (the summary reads gate_set)
    row = con.execute("select distinct plan_format, gate_set, code_digest"
                      " from deid_gate_results").fetchall()
    assert row == [(PLAN_FORMAT, ", ".join(gates), CODE_DIGEST)]


def test_a_gate_table_missing_the_propagation_row_is_refused(con) -> None:
    """Review 12's control: the propagation row deleted (what an older package wrote: it had
    no such gate). The old code read the other verdicts and passed the table ("gate table ...
    computed for these settings, this input, this release and these levels"), and the publish
    said "15 gates passed"."""
    _gate_table(con)
    con.execute("delete from deid_gate_results where gate = 'propagation'")
    read = _read(con)
    print(read["status"]["message"])
    assert not read["status"]["passed"]
    assert read["verdicts"] == []  # nothing of the table is read as a verdict
    assert "holds no verdict of the gate(s) propagation, which this release requires" \
        in read["status"]["message"]
    assert "dbt build -s +deid_published" in read["status"]["message"]


@pytest.mark.parametrize("gate", ["plan_settings", "exact_k_anonymity", "upstream_built"])
def test_any_missing_gate_is_refused_by_name(con, gate: str) -> None:
    _gate_table(con)
    con.execute("delete from deid_gate_results where gate = ?", [gate])
    read = _read(con)
    assert not read["status"]["passed"]
    assert f"holds no verdict of the gate(s) {gate}," in read["status"]["message"]


def test_a_gate_table_of_an_older_package_is_refused(con) -> None:
    """Review 12, H1: the table cd7e34a wrote (same package_version '0.3.0', no propagation
    row, no plan format). The old code published it."""
    _gate_table(con)
    con.execute("delete from deid_gate_results where gate = 'propagation'")
    con.execute("alter table deid_gate_results drop column plan_format")
    con.execute("alter table deid_gate_results drop column gate_set")
    read = _read(con)
    message = read["status"]["message"]
    print(message)
    assert not read["status"]["passed"]
    assert "was computed by another version of dbt_deid (plan format none, package 0.3.0;" \
        f" this package: plan format {PLAN_FORMAT}, version 0.3.0)" in message
    assert "holds no verdict of the gate(s) propagation" in message
    assert "dbt build -s +deid_published" in message


@pytest.mark.parametrize("column, value", [("plan_format", PLAN_FORMAT + 1),
                                           ("plan_format", PLAN_FORMAT - 1),
                                           ("package_version", "0.2.9")])
def test_a_gate_table_of_another_format_or_version_is_refused(con, column: str,
                                                              value: Any) -> None:
    _gate_table(con)
    con.execute(f"update deid_gate_results set {column} = ?", [value])
    read = _read(con)
    assert not read["status"]["passed"]
    assert "was computed by another version of dbt_deid" in read["status"]["message"]
    assert read["verdicts"] == []


@pytest.mark.parametrize("digest", ["0" * 32, None])
def test_a_gate_table_other_code_computed_is_refused(con, digest: str | None) -> None:
    """Review 12 final, M1: a fix of a gate's SQL changes neither the gate set, nor the plan
    format, nor package_version; the old code read such a table as this package's (the first
    case passed on main). Now the code digest it records must be this code's."""
    _gate_table(con)
    if digest is None:
        con.execute("alter table deid_gate_results drop column code_digest")
    else:
        con.execute("update deid_gate_results set code_digest = ?", [digest])
    read = _read(con)
    message = read["status"]["message"]
    print(message)
    assert not read["status"]["passed"]
    assert read["verdicts"] == []
    assert f"was computed by other dbt_deid code (code digest {digest or 'none'}, this" \
        f" package {CODE_DIGEST}: an upgrade or a change of the package since)" in message
    assert "dbt build -s +deid_published" in message


@pytest.mark.parametrize("old", [True, False])
def test_a_plan_other_code_resolved_fails_plan_settings_and_the_publish_step(con, old) -> None:
    """Review 12 final, M1: the same plan format, other code (a resolver fix that the two
    pinned plans below do not show)."""
    if old:
        _plan(con, drop="code_digest")
    else:
        con.execute("update deid_release_plan set code_digest = ?", ["0" * 32])
    call = _caller(con)
    gate = call("default__gate_plan_settings_result")()
    print(gate["message"])
    assert gate["gate"] == "plan_settings" and not gate["passed"]
    shown = "none" if old else "0" * 32
    assert f"(deid_release_plan) was built by other dbt_deid code (code digest {shown}, this" \
        f" package {CODE_DIGEST}:" in gate["message"]
    # review 13 final, L3: a half-upgraded install (pip and packages.yml at other versions)
    # builds such a plan in every build: the message names that case too
    assert "the Python package dbt_deid that resolved it and this dbt package are different" \
        " versions: install one dbt_deid version with pip and in packages.yml" in gate["message"]
    working = call("gate_working_tables_result")(CFG, "{}", "h", True)
    assert not working["passed"]
    assert "was built by other dbt_deid code" in working["message"]


@pytest.mark.parametrize("old", [True, False])
def test_a_plan_of_another_package_fails_plan_settings_and_the_publish_step(con, old) -> None:
    """A plan an older dbt_deid resolved from the same settings (its settings_md5 is the
    settings of now, so the old gate plan_settings passed it; review 12, H1: its propagation
    pairs were the old resolver's): the gate plan_settings fails, and so does the publish
    step's working_tables, which checks the plan it reads in every invocation."""
    _plan(con, old=old)
    if not old:
        con.execute("update deid_release_plan set plan_format = ?", [PLAN_FORMAT + 1])
    call = _caller(con)
    gate = call("default__gate_plan_settings_result")()
    print(gate["message"])
    assert gate["gate"] == "plan_settings" and not gate["passed"]
    shown = "none" if old else str(PLAN_FORMAT + 1)
    assert "(deid_release_plan) was built by another version of dbt_deid (plan format " + shown \
        + f", this package writes {PLAN_FORMAT}, version 0.3.0)" in gate["message"]
    assert "dbt build -s +deid_published" in gate["message"]
    working = call("gate_working_tables_result")(CFG, "{}", "h", True)
    assert not working["passed"]
    assert "was built by another version of dbt_deid" in working["message"]


def test_a_plan_of_this_package_passes_plan_settings(con) -> None:
    call = _caller(con)
    assert call("default__release_plan")("plan_format") == [PLAN_FORMAT]
    assert call("default__release_plan")("code_digest") == [CODE_DIGEST]
    assert call("default__gate_plan_settings_result")()["passed"]


def test_compile_only_commands_take_the_plan_format_of_now() -> None:
    """No plan table under `dbt compile`: the plan from the settings (a release without
    hierarchical QIs), bound to this package's format."""
    call = _caller(duckdb.connect(), which="compile", settings=PLAIN)
    plan = call("_read_release_plan")(Rel("deid_release_plan"))
    assert plan["plan_format"] == [PLAN_FORMAT]
    assert plan["code_digest"] == [CODE_DIGEST]
    assert plan["verified"] == PLAIN["combinations"]


def test_the_gate_set_follows_the_settings(con) -> None:
    """The optional gates: propagation with a pair, the attribute-disclosure models the release
    sets, small_areas when enabled; every other gate always."""
    call = _caller(con)
    always = [g for g in GATES_BY_FORMAT[PLAN_FORMAT]
              if g not in ("propagation", "distinct_l_diversity", "entropy_l_diversity",
                           "recursive_cl_diversity", "t_closeness", "small_areas")]
    assert call("default__release_gate_names")(CFG, []) == always
    ad = {**CFG, "sensitive": ["dx"], "attribute_disclosure": {**NO_AD, "t": 0.3}}
    assert call("default__release_gate_names")(ad, [["age", "age20"]]) == \
        always[:3] + ["propagation"] + always[3:] + ["t_closeness"]
    # declared models without a sensitive column: no attribute-disclosure gate
    assert call("default__release_gate_names")(
        {**ad, "sensitive": []}, []) == always


def test_the_gate_set_is_pinned_to_the_plan_format(con) -> None:
    """Every optional gate on. A failure here means the gate set changed: bump
    dbt_deid.settings_schema.PLAN_FORMAT and add the new list under the new number (a gate
    table computed with the old set must be refused, not read as complete)."""
    call = _caller(con, small_areas=True)
    full = {**CFG, "sensitive": ["dx"], "attribute_disclosure": {
        "distinct_l": 2, "entropy_l": 2, "recursive_c": 3, "t": 0.3}}
    got = call("default__release_gate_names")(full, [["age", "age20"]])
    assert PLAN_FORMAT in GATES_BY_FORMAT, "a new PLAN_FORMAT needs its gate list here"
    assert got == GATES_BY_FORMAT[PLAN_FORMAT], (
        "the gate set changed: bump PLAN_FORMAT in src/dbt_deid/settings_schema.py, run"
        " `python -m dbt_deid.settings_schema --write` and pin the new list")


def _plan_md5(settings: dict[str, Any]) -> str:
    frame = deid_release_plan(json.dumps(settings))
    rows = frame[frame["kind"] != "setting"][["kind", "item", "position", "column_name"]]
    text = rows.astype(str).sort_values(["kind", "item", "position"]).to_csv(index=False)
    return hashlib.md5(text.encode()).hexdigest()


#: The resolver's output for SETTINGS (hierarchical, with propagation) and PLAIN (declared
#: combinations), per plan format.
PLAN_MD5_BY_FORMAT = {1: {"hierarchical": "f4dbac0cfe82056b138968e2c8ff3134",
                          "plain": "d6f77016b04512a0851e2d2fae46b209"}}


def test_the_resolver_output_is_pinned_to_the_plan_format() -> None:
    """A failure here means the resolver writes another plan for the same settings: bump
    PLAN_FORMAT (a plan an older dbt_deid resolved must be refused) and pin the new md5s."""
    got = {"hierarchical": _plan_md5(SETTINGS), "plain": _plan_md5(PLAIN)}
    assert PLAN_FORMAT in PLAN_MD5_BY_FORMAT, "a new PLAN_FORMAT needs its plan md5s here"
    assert got == PLAN_MD5_BY_FORMAT[PLAN_FORMAT], (
        f"the resolver's output changed ({got}): bump PLAN_FORMAT in"
        " src/dbt_deid/settings_schema.py and pin the new md5s")


def test_the_publish_line_shows_the_expected_gate_count(con) -> None:
    """Review 12, L2: "published N rows; 15 gates passed" could not show a missing gate."""
    gates = _gate_table(con)
    status = _read(con)["status"]
    call = _caller(con)
    note = call("gate_set_note")([{"gate": "published_columns", "passed": True}, status])
    assert note == (f", including the verdicts of all {len(gates)} gates this release requires"
                    f" ({', '.join(gates)})")
    assert call("gate_set_note")([{"gate": "claims_k", "passed": True}]) == ""
