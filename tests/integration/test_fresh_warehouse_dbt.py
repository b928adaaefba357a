"""A release on a fresh warehouse (issue 19, item 2): before anything was built, `dbt parse`,
`compile`, `docs generate`, `ls` and `build --empty` succeed; `--empty` releases nothing; a
model that needs the release plan fails with a clear error when it is run alone before the
plan exists (fail closed: only the commands that compile or list get a preview)."""

from __future__ import annotations

import json

import duckdb
import pytest

from tests.integration.dbt_runner import INTEGRATION, RELEASE_SCHEMAS, copy_of, run_dbt

pytestmark = pytest.mark.dbt


def _relations(db) -> set[str]:
    if not db.exists():
        return set()
    with duckdb.connect(str(db), read_only=True) as con:
        return {r[0] for r in con.execute(
            "select table_name from information_schema.tables where table_schema in"
            f" ({', '.join('?' for _ in RELEASE_SCHEMAS)})", list(RELEASE_SCHEMAS)).fetchall()}


@pytest.mark.parametrize("command", [["parse"], ["compile"], ["docs", "generate"], ["ls"]])
def test_compile_only_commands_work_before_anything_was_built(command, tmp_path) -> None:
    run = run_dbt(INTEGRATION, command, tmp_path)
    assert run.ok, run.output[-3000:]
    assert "does not exist" not in run.output
    assert "deid_release_plan" not in _relations(run.database)  # nothing was built
    if command == ["compile"]:
        # the plan of a release without hierarchical QIs is computed from the settings: the
        # compiled gate SQL lists the declared combinations
        compiled = tmp_path / "target" / "compiled" / "dbt_deid"
        gate = next(compiled.rglob("deid_diagnostics.sql"))
        assert "age+gender+los_days+mrdx" in gate.read_text()
    if command == ["ls"]:
        # issue 33: the integration release declares no small areas and no population
        # information, so the models that only hold data with them are not nodes of it (the
        # report reads them through deid_report_inputs when they are built)
        listed = {line.strip().rsplit(".", 1)[-1] for line in run.output.splitlines()}
        assert "deid_report_inputs" in listed, run.output[-3000:]
        assert not {"deid_small_area_inputs", "deid_small_areas",
                    "deid_population_patterns"} & listed
        _the_release_has_the_tests_of_its_gates_only(tmp_path)


#: the package's tests of the integration release (no small areas, no sensitive column): one
#: per gate the gate table always has a row of, and the published table's row count
RELEASE_TESTS = {"deid_gate_k_anonymity", "deid_gate_exact_k_anonymity",
                 "deid_gate_max_suppression", "deid_gate_column_caps", "deid_gate_row_count",
                 "deid_gate_plan_settings", "deid_published_row_count"}
#: the tests of the gates the release does not declare (the gate table has no row of them)
UNDECLARED = {"deid_gate_small_areas", "deid_gate_distinct_l_diversity",
              "deid_gate_entropy_l_diversity", "deid_gate_recursive_cl_diversity",
              "deid_gate_t_closeness"}


def _the_release_has_the_tests_of_its_gates_only(tmp_path) -> None:
    """Issue 33 (a release is a handful of nodes): the manifest `dbt ls` wrote holds the tests
    of the gates the integration release has, and the tests of its undeclared optional gates
    disabled (they could never fail). Old code (31d64a4): 12 tests enabled, these 5 among
    them."""
    manifest = json.loads((tmp_path / "target" / "manifest.json").read_text())
    tests = {n["name"] for n in manifest["nodes"].values() if n["resource_type"] == "test"
             and n["package_name"] == "dbt_deid" and n["config"]["enabled"]}
    assert not tests & UNDECLARED, sorted(tests & UNDECLARED)
    assert tests == RELEASE_TESTS, sorted(tests)


def test_build_empty_on_a_fresh_warehouse_releases_nothing(tmp_path) -> None:
    run = run_dbt(INTEGRATION, ["build", "--empty"], tmp_path)
    assert run.ok, run.output[-3000:]
    assert "--empty: nothing released" in run.output
    assert run.query("select count(*) as n from main.deid_published").n[0] == 0
    # the published table has the release's columns (downstream models can build on it)
    cols = set(run.query("select * from main.deid_published limit 0").columns)
    assert {"province", "age", "gender", "discharge_disposition"} <= cols
    assert "abstract_id" not in cols and "patient_name" not in cols
    # no release is recorded
    assert "deid_release_history" not in run.tables("main")


def test_build_empty_leaves_an_existing_release_as_it_was(default_release, tmp_path) -> None:
    # the project's release built and published (`dbt build --select package:dbt_deid`, the
    # session fixture default_release), copied: `--empty` runs on the copy
    built = copy_of(default_release, tmp_path)
    db = built.database
    assert built.ok, built.output[-3000:]
    before = built.query("select count(*) as n from main.deid_published").n[0]
    assert before > 0
    empty = run_dbt(INTEGRATION, ["build", "--empty", "--select", "package:dbt_deid"], tmp_path,
                    database=db)
    assert empty.ok, empty.output[-3000:]
    assert "the published table is left as it was" in empty.output
    assert empty.query("select count(*) as n from main.deid_published").n[0] == before
    statuses = empty.query("select status from main.deid_release_history").status.tolist()
    assert statuses == ["published"]  # --empty recorded nothing


def test_running_a_release_model_before_its_plan_fails_closed(it_database, tmp_path) -> None:
    import shutil

    db = tmp_path / "release.duckdb"
    shutil.copy(it_database, db)
    run = run_dbt(INTEGRATION, ["run", "--select", "deid_hierarchy"], tmp_path,
                  database=db)
    assert not run.ok
    assert "has not been built; build it first" in run.output
