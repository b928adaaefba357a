"""A consumer project cannot silently replace a gate (issue 32, item 3), nor build the working
tables where the published mart is shared.

dbt's ``adapter.dispatch(name, 'dbt_deid')`` searches the root project before the package, and
dbt picks a root-project ``{% materialization deid_publish %}`` over the package's. On main
(732cd92) a consumer macro ``default__release_gate_results`` returning one passing gate
published a release with ``max_suppression: 0.001`` ("1 gates passed"), and a consumer
materialization published without any gate. Each way now fails the build naming the macro,
and nothing is published (docs/overrides.md).
"""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Callable
from pathlib import Path

import duckdb
import pandas as pd
import pytest
import yaml

from tests.integration.dbt_runner import INTEGRATION, copy_of, release_vars, run_dbt
from tests.integration.test_fail_closed_dbt import _consumer_project

pytestmark = pytest.mark.dbt

FAILING = {"max_suppression": 0.001}

OVERRIDES = {
    # the whole gate set replaced by one passing gate (the reproduction)
    "default__release_gate_results": """
{% macro default__release_gate_results(cfg, published, truth) -%}
  {{ return([{'gate': 'consumer', 'passed': true, 'failures': 0, 'message': 'all good'}]) }}
{%- endmacro %}
""",
    # one dispatched gate query, adapter-specific: MaxSup never fails
    "duckdb__gate_max_suppression_sql": """
{% macro duckdb__gate_max_suppression_sql(relation, max_suppression, columns) -%}
  select 1 as records, 0 as records_with_suppression, 0.0 as share_records_with_suppression,
    {{ max_suppression }} as max_suppression where 1 = 0
{%- endmacro %}
""",
    # the publish materialization: writes the model's SQL, no gate, no history
    "materialization_deid_publish_default": """
{% materialization deid_publish, default %}
  {%- set target_relation = this.incorporate(type='table') -%}
  {% call statement('main') -%}
    {{ get_create_table_as_sql(False, target_relation, sql) }}
  {%- endcall %}
  {{ adapter.commit() }}
  {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}
""",
}


# Project layouts that put the working models in the published schema. dbt's documented
# `generate_schema_name` override for one schema per target ignores custom schemas, so the
# package's `+schema` (the working schema) is dropped: on main (7a63135) `dbt run` published
# with deid_input, deid_suppressed (`<qi>__original`) and deid_release_records in `main`, next
# to deid_published.
LAYOUTS = {
    "generate_schema_name": """
{% macro generate_schema_name(custom_schema_name, node) -%}
  {{ target.schema }}
{%- endmacro %}
""",
}


# dbt's own macros, shadowed by the root project: a root macro is found before dbt's for every
# unqualified call (`run_query`, `statement`, ...) and for dbt's dispatches (`duckdb__<name>`),
# the package's calls and dbt's materializations included. On main (d89e732) this project
# published the failing release (MaxSup 0.001): the wrapper hid the MaxSup gate's failing row.
SHADOWS = {
    "dbt_shadows": """
{% macro run_query(sql) -%}
  {%- if 'share_records_with_suppression >' in sql -%}
    {%- set sql = sql ~ ' and 1 = 0' -%}
  {%- endif -%}
  {{ return(dbt.run_query(sql)) }}
{%- endmacro %}

{% macro duckdb__get_columns_in_relation(relation) -%}
  {{ return(dbt.duckdb__get_columns_in_relation(relation)) }}
{%- endmacro %}

{% macro duckdb__hash(field) -%}
  {{ return(dbt.default__hash(field)) }}
{%- endmacro %}

{% macro ref() -%}
  {{ return(builtins.ref(*varargs, **kwargs)) }}
{%- endmacro %}
""",
}


#: Two installed packages with macros named like dbt's dispatch targets, as dbt_utils has
#: (`default__date_spine`, for its own dispatch): `routed_pkg` is in the project's `dispatch:`
#: search order for dbt's namespace (dbt's `generate_series` resolves to its macro: a shadow),
#: `other_pkg` is not (dbt never reaches its `default__date_spine`: not a shadow).
PACKAGES = {
    "routed_pkg": """
{% macro default__generate_series(upper_bound) -%}
  {{ return(dbt.default__generate_series(upper_bound)) }}
{%- endmacro %}
""",
    "other_pkg": """
{% macro date_spine(datepart, start_date, end_date) -%}
  {{ return(adapter.dispatch('date_spine', 'other_pkg')(datepart, start_date, end_date)) }}
{%- endmacro %}

{% macro default__date_spine(datepart, start_date, end_date) -%}
  {{ return(dbt.date_spine(datepart, start_date, end_date)) }}
{%- endmacro %}
""",
}


def _packages(folder: Path) -> tuple[Path, ...]:
    """The local packages of ``PACKAGES`` under ``folder``."""
    made = []
    for name, macros in PACKAGES.items():
        root = folder / name
        (root / "macros").mkdir(parents=True, exist_ok=True)
        (root / "dbt_project.yml").write_text(
            f"name: {name}\nversion: '1.0.0'\nconfig-version: 2\nmacro-paths: ['macros']\n")
        (root / "macros" / f"{name}.sql").write_text(macros)
        made.append(root)
    return tuple(made)


def _project_with(tmp_path: Path, macro: str) -> Path:
    """integration_tests as a consumer project with one more macro file holding ``macro`` (the
    dbt shadows: also the two packages of ``PACKAGES``, one in dbt's dispatch search order)."""
    extra = tmp_path / "consumer" / "consumer_macros"
    config: dict = {"macro-paths": [str((INTEGRATION / "macros").resolve()), str(extra)]}
    packages: tuple[Path, ...] = ()
    if macro == "dbt_shadows":
        packages = _packages(tmp_path / "packages")
        config["dispatch"] = [{"macro_namespace": "dbt",
                               "search_order": ["routed_pkg", "dbt"]}]
    project = _consumer_project(tmp_path, packages, **config)
    extra.mkdir(parents=True, exist_ok=True)
    (extra / "override.sql").write_text({**OVERRIDES, **LAYOUTS, **SHADOWS}[macro])
    return project


@pytest.fixture(scope="module")
def project_with(tmp_path_factory) -> Callable[[str], Path]:
    """``project_with(macro)``: the consumer project of ``_project_with``, made once per module
    and macro (a copy of the project and its `dbt deps`), so that the tests of one macro run
    the same project, with the same vars, on one saved parse instead of a full parse each."""
    made: dict[str, Path] = {}

    def get(macro: str) -> Path:
        if macro not in made:
            made[macro] = _project_with(tmp_path_factory.mktemp("consumer"), macro)
        return made[macro]

    return get


def _failing_run_refused(project: Path, it_database: Path, tmp_path: Path):
    """`dbt run` of the failing release (MaxSup 0.001) in ``project``: no test stands between
    the gates and the publish step, as on main, where each override published it. Asserts the
    run failed and published nothing; returns the run."""
    db = tmp_path / "release.duckdb"
    shutil.copy(it_database, db)
    run = run_dbt(project, ["run", "--select", "package:dbt_deid"], tmp_path,
                  release_vars(**FAILING), db)
    assert not run.ok, run.output[-3000:]
    assert "deid_published" not in run.tables(), run.output[-3000:]
    return run


@pytest.mark.parametrize("macro", sorted(OVERRIDES))
def test_a_consumer_override_publishes_nothing_and_is_named(
        it_database, project_with, tmp_path, macro) -> None:
    run = _failing_run_refused(project_with(macro), it_database, tmp_path)
    assert f"dbt_deid_integration_tests.{macro}" in run.output, run.output[-3000:]
    assert "docs/overrides.md" in run.output


def test_a_shadowed_dbt_macro_publishes_nothing_and_is_named(
        it_database, project_with, tmp_path) -> None:
    """Root-project macros named like dbt's (`run_query`, which every gate query goes through;
    `duckdb__get_columns_in_relation`, dbt-duckdb's; `duckdb__hash`, found by dbt's dispatch of
    `hash` before dbt's `default__hash`; `ref`, dbt's documented pass-through override): the
    build fails naming each, its file and the dbt macro it shadows, and nothing is published.
    On d89e732 the failing release published."""
    run = _failing_run_refused(project_with("dbt_shadows"), it_database, tmp_path)
    for name, shadowed in [("run_query", "dbt.run_query"),
                           ("duckdb__get_columns_in_relation",
                            "dbt_duckdb.duckdb__get_columns_in_relation"),
                           ("duckdb__hash", "dbt's dispatch of 'hash' (dbt.default__hash)"),
                           ("ref", "dbt's context member 'ref'")]:
        assert f"dbt_deid_integration_tests.{name} (" in run.output, run.output[-3000:]
        assert f"shadows {shadowed}" in run.output, run.output[-3000:]
    # an installed package: named when dbt's dispatch reaches its macro, not otherwise
    assert ("routed_pkg.default__generate_series (" in run.output
            and "shadows dbt's dispatch of 'generate_series'" in run.output), run.output[-3000:]
    assert "other_pkg." not in run.output, run.output[-3000:]
    assert "override.sql" in run.output and "docs/overrides.md" in run.output


def test_the_publish_model_alone_with_a_consumer_materialization_is_refused(
        default_release, project_with, tmp_path) -> None:
    """`dbt run -s deid_published` on a built release (the gate model does not run): the
    publish model refuses while dbt renders its SQL, before the replaced materialization could
    write anything, whatever the gates say (it would publish without them and without the
    history row)."""
    project = project_with("materialization_deid_publish_default")
    run = copy_of(default_release, tmp_path / "db")
    before = run.query("select * from deid_published")
    history = run.query("select count(*) as n from deid_release_history")["n"].iloc[0]
    run = run_dbt(project, ["run", "--select", "deid_published"], tmp_path,
                  release_vars(**FAILING), run.database)
    assert not run.ok, run.output[-3000:]
    assert "dbt_deid_integration_tests.materialization_deid_publish_default" in run.output
    pd.testing.assert_frame_equal(run.query("select * from deid_published"), before)
    _assert_build_error_row(run, history)


def _assert_build_error_row(run, history: int) -> None:
    """The refused attempt is audited (review 8, F3): one 'refused' row more, gate build_error,
    appended by the on-run-end hook (the model raised before its materialization could)."""
    rows = run.query("select status, gates_failed from deid_release_history order by recorded_at")
    assert len(rows) == history + 1, rows
    assert list(rows[["status", "gates_failed"]].iloc[-1]) == ["refused", "build_error"], rows


def _assert_working_schema_refused(run, models: list[str]) -> None:
    assert not run.ok, run.output[-3000:]
    assert "[working_schema]" in run.output, run.output[-3000:]
    assert "nothing published" in run.output
    message = run.output[run.output.index("[working_schema]"):]
    for name in [*models, "docs/projects.md", "deid_work_schema", "generate_schema_name"]:
        assert name in message, message[:3000]
    history = run.query("select status, gates_failed from main.deid_release_history"
                        " where gates_failed like '%working_schema%'")
    assert list(history["status"]) == ["refused"], history


def test_working_models_in_the_published_schema_are_refused(it_database, default_release,
                                                           project_with, tmp_path) -> None:
    """A root project whose `generate_schema_name` ignores custom schemas would build every
    working model in the target schema. The package's on-run-start hook fails the invocation
    before any node runs, naming the models, the schema and the fix: no working table is
    created in the published schema (on main, 12b6452, `dbt run` built deid_input,
    deid_suppressed and the rest there and only the publish step refused). The publish step's
    check stays: on a warehouse where an earlier build (before the hook) put the working tables
    in the published schema, `dbt run -s deid_published` (no working model selected, so the
    hook passes) refuses naming the same models and publishes nothing."""
    project = project_with("generate_schema_name")
    db = tmp_path / "release.duckdb"
    shutil.copy(it_database, db)
    with duckdb.connect(str(db), read_only=True) as con:
        before = {r[0] for r in con.execute("select table_name from information_schema.tables"
                                            " where table_schema = 'main'").fetchall()}
    # the package's models only: the consumer project's model-paths are absolute, and dbt
    # writes a compiled Python model over its source file then (integration_tests/models/*.py)
    run = run_dbt(project, ["run", "--select", "+deid_published,package:dbt_deid"], tmp_path,
                  release_vars(), db)
    assert not run.ok, run.output[-3000:]
    # nothing was built: the published schema holds what it held (the seeds), no working table
    assert run.tables("main") == before, sorted(run.tables("main") - before)
    message = run.output[run.output.index("[working_schema]"):]
    for name in ["nothing was built", "would be built in release.main, the schema of the"
                 " published deid_published: deid_input, deid_suppressed, deid_generalized",
                 "docs/projects.md", "deid_work_schema", "generate_schema_name"]:
        assert name in message, message[:3000]

    # the publish step's check: the working tables an earlier build left in `main`
    built = copy_of(default_release, tmp_path / "earlier")
    published = built.query("select * from deid_published")
    with duckdb.connect(str(built.database)) as con:
        for (table,) in con.execute("select table_name from information_schema.tables where"
                                    " table_schema = 'main_deid_work'").fetchall():
            con.execute(f"create table main.{table} as select * from main_deid_work.{table}")
    run = run_dbt(project, ["run", "--select", "deid_published"], tmp_path / "publish",
                  release_vars(), built.database)
    _assert_working_schema_refused(run, ["deid_input", "deid_suppressed", "deid_generalized",
                                         "deid_release_records", "in release.main,"])
    assert "published deid_published: deid_input, deid_suppressed, deid_generalized" in run.output
    pd.testing.assert_frame_equal(run.query("select * from deid_published"), published)


def test_a_working_table_left_in_the_published_schema_is_refused(default_release,
                                                                tmp_path) -> None:
    """The layout fixed, a table an earlier build left in the published schema still shares the
    originals: the publish step refuses until it is dropped (on main it published)."""
    run = copy_of(default_release, tmp_path / "db")
    before = run.query("select * from deid_published")
    with duckdb.connect(str(run.database)) as con:
        con.execute("create table main.deid_input as select * from main_deid_work.deid_input")
    run = run_dbt(INTEGRATION, ["run", "--select", "deid_published"], tmp_path,
                  release_vars(), run.database)
    _assert_working_schema_refused(run, ["deid_input", "left by an earlier build", "drop them"])
    pd.testing.assert_frame_equal(run.query("select * from deid_published"), before)


def test_grants_or_hooks_on_working_models_are_refused(default_release, tmp_path) -> None:
    """A project-wide `models: +grants: {select: [...]}` (dbt applies it to every package's
    models) or a grant post-hook would share the working tables holding original values
    (review 8, F6: on 5dda012 `dbt run -s deid_input deid_published` with this project granted
    deid_input and published, "11 gates passed"). The on-run-start check fails an invocation
    that would build such a working model, before any node runs; the publish step's
    working_schema gate refuses on the graph's configs (a 'refused' row), naming each model,
    its setting and the fix (`models: dbt_deid: publish: +grants`). No warehouse grant is needed:
    DuckDB has none, the configs are read from the graph as dbt resolved them. (Both checks'
    logic: tests/unit/test_working_schema_tables.py.)"""
    project = _consumer_project(tmp_path, models={
        "+grants": {"select": ["analysts"]},
        "dbt_deid": {"deid_suppressed": {"+post-hook": "select 1 as grant_placeholder"}}})
    run = copy_of(default_release, tmp_path / "db")
    published = run.query("select * from deid_published")
    history = run.query("select count(*) as n from deid_release_history")["n"].iloc[0]
    run = run_dbt(project, ["run", "--select", "deid_input", "deid_published"], tmp_path,
                  release_vars(), run.database)
    assert not run.ok, run.output[-3000:]
    message = run.output[run.output.index("[working_schema]"):].replace("\n", " ")
    for text in ["nothing was built", "deid_input (grants)", "models: dbt_deid: publish: +grants"]:
        assert text in message, message[:3000]
    assert run.query("select count(*) as n from deid_release_history")["n"].iloc[0] == history

    # the publish step (the hook passes: no working model selected)
    run = run_dbt(project, ["run", "--select", "deid_published"], tmp_path / "publish",
                  release_vars(), run.database)
    assert not run.ok, run.output[-3000:]
    message = run.output[run.output.index("[working_schema]"):].replace("\n", " ")
    for text in ["deid_input (grants)", "deid_suppressed (grants, post-hook)", "deid_generalized",
                 "models: dbt_deid: publish: +grants"]:
        assert text in message, message[:3000]
    rows = run.query("select status, gates_failed from deid_release_history order by recorded_at")
    assert len(rows) == history + 1 and rows["status"].iloc[-1] == "refused", rows
    assert "working_schema" in rows["gates_failed"].iloc[-1]
    pd.testing.assert_frame_equal(run.query("select * from deid_published"), published)


#: Root-project models named like the package's release models (review 7, findings 1 and 2):
#: with dbt's default `require_ref_searches_node_package_before_root: false`, a package ref()
#: by name found the root's `deid_gate_results` first (on b31f4c4 this one, saying "passed",
#: published an unsuppressed release); with the flag true a root `deid_release_gate` (the gate
#: view, folded into the gate table in session 13) made the package's graph lookup return none,
#: which switched the line checks off. A root model named like any other package model
#: (`deid_suppressed`) is refused the same way. In their own schema (in the published schema
#: the working_schema gate refused them by their names).
COLLIDING_MODELS = {
    "deid_gate_results": "{{ config(materialized='table', schema='shadow') }}\n"
                         "select * replace (true as passed, 0 as failures)"
                         " from {{ ref('dbt_deid', 'deid_gate_results') }}\n",
    "deid_suppressed": "{{ config(materialized='view', schema='shadow') }}\n"
                       "select 1 as unrelated\n",
}


def test_a_root_model_named_like_a_release_model_is_refused(default_release, tmp_path) -> None:
    """The root models above built next to the published release (dbt's default flag): the
    publish step refuses naming each with its package and file, and nothing is published (on
    a5cf6b0 the run passed: `published 4000 rows; 11 gates passed`, version 2, gate table
    read from the root model)."""
    config = yaml.safe_load((INTEGRATION / "dbt_project.yml").read_text())
    paths = [str((INTEGRATION / p).resolve()) for p in config["model-paths"]]
    project = _consumer_project(tmp_path, **{
        "model-paths": [*paths, "colliding_models"],
        "flags": {**config["flags"], "require_ref_searches_node_package_before_root": False}})
    (project / "colliding_models").mkdir()
    for name, body in COLLIDING_MODELS.items():
        (project / "colliding_models" / f"{name}.sql").write_text(body)
    run = copy_of(default_release, tmp_path / "db")
    before = run.query("select * from deid_published")
    history = run.query("select count(*) as n from deid_release_history")["n"].iloc[0]
    run = run_dbt(project, ["run", "--select", "deid_published",
                            *(f"dbt_deid_integration_tests.{n}" for n in COLLIDING_MODELS)],
                  tmp_path, release_vars(), run.database)
    assert not run.ok, run.output[-3000:]
    output = run.output.replace("\n", " ")
    for name in COLLIDING_MODELS:
        assert (f"dbt_deid_integration_tests.{name} (colliding_models/{name}.sql) has the"
                f" name of the dbt_deid model {name}") in output, run.output[-3000:]
    assert "docs/overrides.md" in run.output
    pd.testing.assert_frame_equal(run.query("select * from deid_published"), before)
    _assert_build_error_row(run, history)


def test_dbt_clone_of_the_published_table_is_refused(default_release, tmp_path) -> None:
    """`dbt clone --full-refresh -s deid_published --state <the build's target>` (review 7,
    finding 6): on a5cf6b0 it passed (`PASS=1`) and left `main.deid_published` a view over
    itself, the release gone and the history still saying `published`. The publish model's
    pre-hook fails the node naming it; the published table and the history are unchanged."""
    run = copy_of(default_release, tmp_path / "db")
    before = run.query("select * from deid_published")
    history = run.query("select count(*) as n from deid_release_history")["n"].iloc[0]
    state = default_release.database.parent / "target"
    run = run_dbt(INTEGRATION, ["clone", "--select", "deid_published", "--state", str(state),
                                "--full-refresh"], tmp_path, release_vars(), run.database)
    assert not run.ok, run.output[-3000:]
    assert ("dbt_deid [clone]: nothing was cloned: `dbt clone` would replace the published"
            " deid_published") in run.output.replace("\n", " "), run.output[-3000:]
    pd.testing.assert_frame_equal(run.query("select * from deid_published"), before)
    assert run.query("select count(*) as n from deid_release_history")["n"].iloc[0] == history
    with duckdb.connect(str(run.database), read_only=True) as con:
        assert con.execute("select table_type from information_schema.tables where table_schema"
                           " = 'main' and table_name = 'deid_published'").fetchall() == [
                               ("BASE TABLE",)]


#: A project's hooks on the publish model (review 8, finding 1): a "drop incomplete rows"
#: post-hook on deid_published (suppressed cells are NULL) and a project-wide post-hook, which
#: dbt adds to the package's models too. On 5dda012 the post-hook ran after the gates and the
#: 'published' history row, in the publish transaction: 1,304 of 4,000 records deleted, the
#: history saying 4,000 rows.
PUBLISH_HOOKS = {
    "deid_published": "delete from {{ this }} where mrdx is null or cci_code is null",
    "project": "delete from {{ this }} where province is null",
}


#: A project-wide `+sql_header` (review 8 final, R8): dbt writes it before the candidate's
#: create statement, inside the publish step; on 45d0c4e it ran unchecked.
PUBLISH_SQL_HEADER = "delete from main.discharge_abstracts where province = 'PE';"


def test_a_project_hook_on_the_publish_model_is_refused(default_release, tmp_path) -> None:
    """`dbt run -s deid_published` with both hooks and a project-wide sql_header: refused
    naming the model and each hook by its setting, position and a hash, never its SQL (review
    8 final, R7: on 45d0c4e the SQL went into the output and the history); the header does not
    run; the published table and its rows are unchanged; a 'refused' history row names the
    publish_hooks gate."""
    models = yaml.safe_load((INTEGRATION / "dbt_project.yml").read_text())["models"]
    models["dbt_deid"]["publish"]["deid_published"] = {
        "+post-hook": PUBLISH_HOOKS["deid_published"]}
    models["+post-hook"] = PUBLISH_HOOKS["project"]
    models["+sql_header"] = PUBLISH_SQL_HEADER
    project = _consumer_project(tmp_path, models=models)
    run = copy_of(default_release, tmp_path / "db")
    before = run.query("select * from deid_published")
    run = run_dbt(project, ["run", "--select", "deid_published"], tmp_path, release_vars(),
                  run.database)
    output = run.output.replace("\n", " ")
    assert not run.ok, run.output[-3000:]
    assert "model deid_published: release refused, nothing published" in output, output[-3000:]
    assert "[publish_hooks] model deid_published has 3 hook(s) dbt_deid does not set" in output
    for sql in PUBLISH_HOOKS.values():
        assert f"(md5 {hashlib.md5(sql.encode()).hexdigest()[:8]})" in output, output[-3000:]
        assert sql not in output
    assert "+post-hook #1 (md5 " in output and "+post-hook #2 (md5 " in output
    header = hashlib.md5(PUBLISH_SQL_HEADER.encode()).hexdigest()[:8]
    assert f"+sql_header (md5 {header})" in output, output[-3000:]
    assert "'PE'" not in output and "docs/overrides.md" in output
    pd.testing.assert_frame_equal(run.query("select * from deid_published"), before)
    assert run.query("select count(*) as n from discharge_abstracts")["n"].iloc[0] == 4000
    last = run.query("select status, gates_failed, gates_passed from deid_release_history"
                     " order by recorded_at desc, status limit 1")
    assert last.to_dict("records") == [
        {"status": "refused", "gates_failed": "publish_hooks", "gates_passed": ""}], last
    gates = run.query("select gates_json from deid_release_history where status = 'refused'")
    text = gates["gates_json"].iloc[0]
    assert "(md5 " in text and "'PE'" not in text and "is null" not in text

    # under --empty the hook refusal comes first too, with its row (review 8 final, R13: on
    # 45d0c4e the --empty shortcut returned before the check, no row, the run passing)
    empty = run_dbt(project, ["run", "--select", "deid_published", "--empty"], tmp_path / "empty",
                    release_vars(), run.database)
    assert not empty.ok and "[publish_hooks]" in empty.output, empty.output[-3000:]
    refused = empty.query("select count(*) as n from deid_release_history"
                          " where status = 'refused' and gates_failed = 'publish_hooks'")
    assert refused["n"].iloc[0] == 2
    pd.testing.assert_frame_equal(empty.query("select * from deid_published"), before)
