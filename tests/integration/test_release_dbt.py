"""dbt integration: the release on embedded DuckDB, its gates, and bad inputs (issue 2).

Runs ``dbt build`` in the consumer projects (``demo/``, ``integration_tests/``), which install
the package through ``packages.yml`` (``local: ../``) and the Python core from this checkout.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import duckdb
import pandas as pd
import pytest

from dbt_deid.dbt_side.settings_jinja import jinja_config
from dbt_deid.errors import ConfigError
from dbt_deid.settings_resolve import resolve
from tests.independent_check import smallest_class, smallest_consistent_set
from tests.integration.dbt_runner import (
    INTEGRATION,
    DbtRun,
    build_release,
    check_settings,
    project_vars,
    release_vars,
    run_dbt,
)
from tests.published_form import published_frame

pytestmark = pytest.mark.dbt

def _release(**changes) -> dict:
    return release_vars(**changes)


def _build_release(it_database: Path, tmp: Path, variables: dict, command: str = "build"):
    return build_release(it_database, tmp, variables, command)


def test_integration_release_passes(default_release) -> None:
    """The project's release (``_release()``: its own vars) builds, passes and publishes (the
    build: the session fixture default_release, ``build_release`` with these vars)."""
    run = default_release
    assert run.ok, run.output[-3000:]
    published = run.query("select * from deid_published")
    assert len(published) == 4000
    # issue 35: periods and intervals as labels no one reads as an exact value (a quarter was
    # published as its first day, 2024-10-01), one-to-one with the checked cells
    shown = published.dropna()
    assert shown["admission_date"].str.match(r"^\d{4}-Q[1-4]$").all()
    assert shown["age"].str.match(r"^(\[\d+, \d+\)|90\+)$").all()
    assert shown["los_days"].str.match(r"^(\[\d+, \d+\)|182\+)$").all()
    key = [c for c in published.columns if c in QI_BASE]
    expected = published_frame(run.query("select * from deid_suppressed")[key],
                               _release()["deid_release"])
    assert (published[key].astype(str).sort_values(key).reset_index(drop=True)
            .equals(expected.astype(str).sort_values(key).reset_index(drop=True)))


def test_unreachable_max_suppression_blocks_publish(it_database, tmp_path) -> None:
    run = _build_release(it_database, tmp_path, _release(max_suppression=0.001))
    assert not run.ok
    assert "deid_gate_max_suppression" in run.output
    tables = run.tables()
    assert "deid_published" not in tables
    assert "deid_diagnostics" in tables  # diagnostics still built
    # the gate tests are on the gate table and depend on deid_diagnostics (session 13): dbt
    # skips the publish model only (this build excludes the report; the graph's rule for it:
    # test_gate_selection_dbt.py::test_a_failing_gate_test_skips_the_publish_model_only)
    skipped = re.findall(r"SKIP relation (\S+)", run.output)
    assert [s.split(".")[-1] for s in skipped] == ["deid_published"], run.output[-3000:]


def test_store_failures_hold_no_quasi_identifier_values(it_database, tmp_path) -> None:
    variables = _release(max_suppression=0.001, column_suppression_cap=0.0001)
    run = build_release(it_database, tmp_path, variables, extra=["--store-failures"])
    assert not run.ok
    audit = "main_dbt_test__audit"
    failures = [t for t in run.tables(audit)
                if t in ("deid_gate_max_suppression", "deid_gate_column_caps")]
    assert len(failures) == 2
    # `message`: the gate's figure and limit (counts, limits and column names only)
    allowed = {"records", "records_with_suppression", "share_records_with_suppression",
               "max_suppression", "column_name", "suppressed_cells", "share_suppressed", "cap",
               "message"}
    for table in failures:
        frame = run.query(f'select * from {audit}."{table}"')
        assert set(frame.columns) <= allowed, frame.columns
        if "column_name" in frame.columns:
            assert set(frame["column_name"]) <= set(project_vars(INTEGRATION)["deid_release"]
                                                   ["quasi_identifiers"])


QI_BASE = project_vars(INTEGRATION)["deid_release"]["quasi_identifiers"]


BAD_SETTINGS = [
    ({"tau": 1}, "'k': must be >= 2"),
    ({"tau": 0}, "'tau': must be a number in (0, 1]"),
    ({"tau": 1.5}, "'tau': must be a number in (0, 1]"),
    ({"max_suppression": 1.5}, "'max_suppression': must be a number in [0, 1]"),
    ({"combinations": [["age", "zip"]]}, "'combinations[1]': names unknown column 'zip'"),
    ({"max_supression": 0.05}, "did you mean 'max_suppression'?"),
    ({"quasi_identifiers": {**QI_BASE, "gender": {"level": 0, "weight": 3}}},
     "'quasi_identifiers.gender.weight'"),
    ({"sample": {"fraction": 0.6, "slot": 1}}, "'sample.slot'"),
    ({"sample": {"fraction": 0.1, "order": "population"}},
     "'sample.order': must be one of sample_first, population_first"),
    ({"population_estimator": "poisson"},
     "'population_estimator': must be one of scaling, truncated_poisson"),
    ({"tau": None, "population_threshold": 20, "sampling_fraction": 0.25,
      "sample": {"fraction": 0.25, "order": "population_first"}},
     "'sample.order': population_first protects the whole population"),
]


def test_a_bad_setting_fails_before_any_work(it_database, tmp_path) -> None:
    """A bad setting in the vars fails the build before any work: a type at parse time, a value
    rule (here k >= 2) at the plan node deid_release_plan, which every release model depends
    on; nothing is built. (Every case of BAD_SETTINGS raises in one of the two, with the same
    words: test_bad_settings_name_the_setting.)"""
    changes, message = BAD_SETTINGS[0]
    run = _build_release(it_database, tmp_path, _release(**changes))
    assert not run.ok
    assert message in run.output, run.output[-2000:]
    assert "deid_published" not in run.tables()
    assert "deid_generalized" not in run.tables()


def test_bad_settings_name_the_setting(tmp_path) -> None:
    """Every bad setting: the parse-time check (dbt_deid.release_config, given the release)
    raises one compiler error with the message the build above fails with, or, for a value
    rule, accepts it and the resolver the plan node runs raises that message (issue 33)."""
    runs = check_settings([("release", _release(**changes)["deid_release"])
                           for changes, _ in BAD_SETTINGS], tmp_path)
    for (changes, message), run in zip(BAD_SETTINGS, runs, strict=True):
        raw = _release(**changes)["deid_release"]
        if message not in run.output:  # a value rule: the plan node's resolver
            jinja_config("release", raw)  # the parse-time check accepts it
            with pytest.raises(ConfigError) as err:
                resolve("release", raw)
            assert message in str(err.value), changes
            continue
        assert not run.ok and "Compilation Error" in run.output, run.output[-2000:]
        assert message in run.output, (changes, run.output[-2000:])


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"quasi_identifiers": {**QI_BASE, "province": {"hierarchy": "gender_hierarchy",
                                                        "level": 1}}},
         "column 'province' value 'AB' is missing from hierarchy 'gender_hierarchy'"),
        ({"quasi_identifiers": {**QI_BASE, "province": {"hierarchy":
                                                        "hierarchy_with_duplicate_key",
                                                        "level": 1}}},
         "has duplicate key value 'NB'"),
        ({"source": "empty_discharge_abstracts"}, "has no records; nothing to release"),
        ({"quasi_identifiers": {**QI_BASE, "zip": {"level": 0}},
          "combinations": [["age", "zip"], *project_vars(INTEGRATION)["deid_release"]
                           ["combinations"]]},
         "names column 'zip', which is not in source"),
        ({"record_id": "gender_typo"}, "names column 'gender_typo', which is not in source"),
    ],
)
def test_bad_data_gives_one_clear_error_and_nothing_published(
    it_database, tmp_path, changes, message
) -> None:
    run = _build_release(it_database, tmp_path, _release(**changes))
    assert not run.ok
    assert message in run.output, run.output[-3000:]
    assert "deid_published" not in run.tables()


def test_two_disjoint_seeded_samples(it_database, tmp_path) -> None:
    """El Emam et al. 2011's two PUMFs: non-overlapping random samples, each behind its own
    gates."""
    ids = []
    for slot in (0, 1):
        tmp = tmp_path / f"slot{slot}"
        tmp.mkdir()
        sample = {"fraction": 0.4, "slot": slot, "seed": 2011}
        run = _build_release(it_database, tmp, _release(sample=sample))
        assert run.ok, run.output[-3000:]
        got = set(run.query("select abstract_id from deid_suppressed")["abstract_id"])
        published = run.query("select count(*) as n from deid_published")["n"][0]
        assert published == len(got)
        assert 1400 < len(got) < 1800  # about 40% of 4000
        ids.append(got)
    assert not ids[0] & ids[1]
    # the same sample again: the records are drawn in the models up to deid_suppressed (the
    # release source's seeded hash filter), so `dbt run` of those models is enough to show it
    (tmp_path / "again").mkdir()
    again = build_release(it_database, tmp_path / "again",
                          _release(sample={"fraction": 0.4, "slot": 0, "seed": 2011}), "run",
                          select="+deid_suppressed")
    assert again.ok, again.output[-3000:]
    assert set(again.query("select abstract_id from deid_suppressed")["abstract_id"]) == ids[0]


def test_all_levels_released_with_propagation(it_database, tmp_path) -> None:
    """Diagnosis released as MRDx, CMG, block and chapter; adversary at CMG (Table 8)."""
    qis = {**{q: QI_BASE[q] for q in ("province", "age", "gender")},
           "mrdx": {"hierarchy": "diagnosis_hierarchy", "level": 0},
           "cmg": {"level": 0},
           "diag_block": {"column": "mrdx", "hierarchy": "diagnosis_hierarchy", "level": 2},
           "diag_chapter": {"column": "mrdx", "hierarchy": "diagnosis_hierarchy", "level": 3}}
    variables = _release(
        quasi_identifiers=qis, combinations=None,
        demographics=["province", "age", "gender"],
        excluded=["total_cost_cad", "los_days", "cci_code", "admission_date"],
        hierarchical_qis={"diagnosis": {
            "levels": ["mrdx", "cmg", "diag_block", "diag_chapter"],
            "generalizes": {"diag_block": "mrdx", "diag_chapter": "diag_block"},
            "adversary_level": "cmg"}},
    )
    variables["deid_release"].pop("combinations", None)
    run = _build_release(it_database, tmp_path, variables)
    assert run.ok, run.output[-3000:]
    published = run.query("select * from deid_published")
    cols = list(published.columns)
    assert cols.index("mrdx") + 1 == cols.index("diag_block")  # levels replace the source column
    assert {"cmg", "diag_chapter"} <= set(cols)
    plan = run.query("select * from deid_release_plan where kind = 'verified'")
    verified = [list(g.sort_values("position")["column_name"]) for _, g in plan.groupby("item")]
    assert ["province", "age", "gender", "diag_chapter"] in verified
    s = run.query("select * from deid_suppressed")
    assert s.loc[s["diag_block"].isna(), "diag_chapter"].isna().all()
    assert s.loc[s["diag_block"].isna() | s["cmg"].isna(), "mrdx"].isna().all()
    # the gate propagation (review 11 final, M2) checked every plan pair on the checked release
    gates = run.query("select gate, passed, failures, message from deid_gate_results")
    prop = gates[gates["gate"] == "propagation"]
    assert len(prop) == 1 and bool(prop["passed"].iloc[0]), gates.to_string()
    assert int(prop["failures"].iloc[0]) == 0
    truth = s[[f"{q}__generalized" for q in ["province", "age", "gender", "diag_chapter"]]]
    truth.columns = ["province", "age", "gender", "diag_chapter"]
    truth = published_frame(truth, variables["deid_release"])  # labelled as published
    b = ["province", "age", "gender", "diag_chapter"]
    assert smallest_class(published, b) >= 5
    assert smallest_consistent_set(truth, published, b) >= 5
    # one original-value column per source column: mrdx's holds diag_block's and diag_chapter's
    originals = [c for c in s.columns if c.endswith("__original")]
    assert originals == ["province__original", "age__original", "gender__original",
                         "mrdx__original", "cmg__original"]
    generalized = run.query("select * from deid_generalized")
    assert [c for c in generalized.columns if c.endswith("__original")] == originals

    # review 12, H1: a gate table without the propagation row (what a dbt_deid older than the
    # gate wrote, read after an upgrade) is refused by a publish-only run naming the gate; on
    # 31d64a4 this published ("15 gates passed", the same count as with the row)
    with duckdb.connect(str(run.database)) as con:
        con.execute("delete from main_deid_work.deid_gate_results where gate = 'propagation'")
    alone = run_dbt(INTEGRATION, ["run", "--select", "deid_published"], tmp_path / "alone",
                    variables, run.database)
    assert not alone.ok, alone.output[-3000:]
    assert "release refused, nothing published" in alone.output, alone.output[-3000:]
    assert re.search(r"\[gate_table\] [^\n]*holds no verdict of the gate\(s\) propagation, which"
                     r" this release requires", alone.output), alone.output[-3000:]
    assert "dbt build -s +deid_published" in alone.output
    pd.testing.assert_frame_equal(alone.query("select * from deid_published"), published)
    last = alone.query("select status, gates_failed from deid_release_history"
                       " order by recorded_at desc limit 1")
    assert last["status"].iloc[0] == "refused" and "gate_table" in last["gates_failed"].iloc[0]

    # the source's diagnosis changes for one record; the publish model rebuilt alone must be
    # refused by input_unchanged, which reads the shared column (issue 12: fail closed)
    with duckdb.connect(str(run.database)) as con:
        rid, code = con.execute(
            "select a.abstract_id, b.mrdx from main.discharge_abstracts a"
            " join main.discharge_abstracts b on b.mrdx <> a.mrdx"
            " order by a.abstract_id, b.abstract_id limit 1").fetchone()
        con.execute("update main.discharge_abstracts set mrdx = ? where abstract_id = ?",
                    [code, rid])
    again = run_dbt(INTEGRATION, ["build", "--select", "deid_published"], tmp_path / "again",
                    variables, run.database)
    assert not again.ok, again.output[-3000:]
    assert "release refused, nothing published" in again.output, again.output[-3000:]
    assert re.search(r"\[input_unchanged\] 1 record\(s\) of the release input are missing from,"
                     r" or changed since", again.output), again.output[-3000:]


@pytest.fixture(scope="module")
def gate_fixtures(it_database, tmp_path_factory) -> DbtRun:
    """The gates on the project's two fixture tables (var ``gate_selftest``), in one build:
    gate_fixture_unsafe (not 3-anonymous) and gate_fixture_exact_only (a suppressed record in
    a class of one but consistent with three records); each table has its own gate tests, and
    dbt reports each test by name."""
    variables = {**project_vars(INTEGRATION), "gate_selftest": True}
    tmp = tmp_path_factory.mktemp("gate_fixtures")
    db = tmp / "release.duckdb"
    shutil.copy(it_database, db)
    return run_dbt(INTEGRATION, ["build", "--select", "gate_fixture_unsafe",
                                 "gate_fixture_exact_only", "deid_release_plan"], tmp,
                   variables, db)


def test_k_anonymity_gates_fail_on_an_unsafe_table(gate_fixtures) -> None:
    """The class-size and exact gates must fail on a table that is not 3-anonymous."""
    run = gate_fixtures
    assert not run.ok
    assert re.search(r"FAIL \d+ dbt_deid_deid_k_anonymity_gate_fixture_unsafe", run.output)
    assert re.search(r"FAIL \d+ dbt_deid_deid_exact_k_anonymity_gate_fixture_unsafe", run.output)


def test_exact_gate_counts_consistent_records_not_classes(gate_fixtures) -> None:
    """Class sizes are sufficient, the exact count is definitive: on a table where a suppressed
    record is a class of one but consistent with three records, the k-anonymity gate fails at
    k = 2 while the exact gate passes, and at k = 3 the exact gate reports exactly the two
    records whose consistent set is 2 (its pruning skips only records provably >= k)."""
    run = gate_fixtures
    assert not run.ok
    assert re.search(r"FAIL \d+ dbt_deid_deid_k_anonymity_gate_fixture_exact_only", run.output)
    exact = re.findall(r"(PASS|FAIL \d+) dbt_deid_deid_exact_k_anonymity_gate_fixture_exact_only",
                       run.output)
    assert sorted(exact) == ["FAIL 1", "PASS"], run.output[-3000:]
    frame = run.query("select combination, k, min_consistent, records_below_k"
                      " from main_dbt_test__audit.gate_fixture_exact_only_k3_failures")
    assert frame.values.tolist() == [["age+gender", 3, 2, 2]]


def test_ungeneralized_numbers_are_published_in_the_source_type(it_database, tmp_path) -> None:
    """Issue 35: an integer QI released at level 0 is published as one (BIGINT; it was text),
    while a generalized one is a half-open interval; read off the publish model's SQL (`dbt
    compile`, no build)."""
    db = tmp_path / "release.duckdb"
    shutil.copy(it_database, db)
    qis = {**QI_BASE, "age": {**QI_BASE["age"], "level": 0}}
    run = run_dbt(INTEGRATION, ["compile", "--select", "deid_published"], tmp_path,
                  _release(quasi_identifiers=qis), db)
    assert run.ok, run.output[-3000:]
    sql = next((tmp_path / "target" / "compiled").rglob("deid_published.sql")).read_text()
    # the cell comes from the column's lookup of distinct values (published_value_lookup,
    # session 14), whose published form is the source type
    shown = re.search(r'(deid_shown_\d+__)\.f as "?age"?', sql)
    assert shown, sql[-3000:]
    assert re.search(r"cast\(d\.v as BIGINT\) as f from \(select distinct \"?age\"? as v from "
                     r"[^)]*\) as d\) as " + shown.group(1), sql), sql[-3000:]
    assert re.search(r"'-Q4'", sql) and "'['" in sql  # the quarter and the length of stay
