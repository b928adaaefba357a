"""The release's settings rows, written by the plan node deid_release_plan (rows ``kind =
'setting'``; the SQL model deid_release_parameters until session 11, folded into the plan: issue
33, "a release is a handful of nodes"). The rows are the ones the SQL model wrote (the
integration release's, its OLA and small-area variants: identical, docs/diagnostics.md), the
plan's other rows are unchanged, and ``summary`` reads them (and refuses a plan without them)."""

from __future__ import annotations

import json

import duckdb
import pytest

from dbt_deid import __version__
from dbt_deid.dbt_side.glue.release import deid_release_plan, release_plan
from dbt_deid.errors import DataError
from dbt_deid.tools.commands.summary import render_summary

RELEASE = {
    "name": "r1", "source": "src", "record_id": "id", "max_suppression": 0.05,
    "tau": 0.2, "direct_identifiers": ["name", "card"], "pass_through": ["x"],
    "quasi_identifiers": {
        "age": {"rule": {"type": "interval", "levels": [{"width": 5}]}, "level": 1,
                "weight": 0.5, "suppression_cap": 0.02},
        "sex": None,
        "zip": {"column": "postal", "hierarchy": "zip_hierarchy", "level": 1},
    },
    "column_suppression_cap": {"sex": 0.1},
    "combinations": [["age", "sex"], ["sex", "zip"]],
}


def _settings(release: dict) -> list[tuple[int, str, str]]:
    frame = deid_release_plan(json.dumps(release))
    rows = frame[frame["kind"] == "setting"]
    return [(int(r.item), r.setting, r.value) for r in rows.itertuples()]


def test_settings_rows_as_the_sql_model_wrote_them() -> None:
    rows = _settings(RELEASE)
    assert [i for i, _, _ in rows] == list(range(1, len(rows) + 1))
    got = {s: v for _, s, v in rows}
    assert [s for _, s, _ in rows][:14] == [
        "release", "algorithm", "preset", "tau", "k", "max_suppression", "record_id",
        "direct_identifiers_dropped", "excluded_dropped", "pass_through_published_unchanged",
        "sensitive_published_gated", "missing_label", "sample", "dbt_deid_version"]
    assert got["release"] == "r1" and got["algorithm"] == "combinations"
    assert (got["preset"], got["tau"], got["k"]) == ("none", "0.2", "5")
    assert got["max_suppression"] == "0.05"
    assert got["direct_identifiers_dropped"] == "name, card" and got["excluded_dropped"] == ""
    assert got["missing_label"] == "<missing>" and got["sample"] == "none"
    assert got["dbt_deid_version"] == __version__
    assert got["protected_combination_1"] == "age+sex"
    assert got["verified_combination_2"] == "sex+zip"
    assert got["released_quasi_identifiers"] == "age, sex, zip"
    # the QI's own cap, column_suppression_cap's for it, none (a mapping naming other QIs)
    assert got["qi.age"] == "column age, level 1, weight 0.5, rule interval, suppression cap 0.02"
    assert got["qi.sex"] == "column sex, level 0, weight 1.0, suppression cap 0.1"
    assert got["qi.zip"] == "column postal, level 1, weight 1.0, hierarchy zip_hierarchy"


@pytest.mark.parametrize(("extra", "tau", "k"), [
    ({"k": 4}, "0.25", "4"),
    ({"preset": "audited"}, str(1.0 / 3.0), "3"),
    ({"preset": "research"}, "0.2", "5"),
    ({"population_threshold": 20, "sampling_fraction": 0.1}, "0.5", "2"),
])
def test_tau_and_k_as_the_settings_give_them(extra, tau, k) -> None:
    release = {key: v for key, v in RELEASE.items() if key != "tau"} | extra
    got = {s: v for _, s, v in _settings(release)}
    assert (got["tau"], got["k"]) == (tau, k)
    assert got["preset"] == extra.get("preset", "none")


def test_sample_and_a_cap_for_every_column() -> None:
    release = RELEASE | {"column_suppression_cap": 0.3,
                         "sample": {"fraction": 0.5, "seed": 7, "order": "population_first"}}
    got = {s: v for _, s, v in _settings(release)}
    assert got["sample"] == "fraction 0.5, slot 0, seed 7, order population_first"
    assert got["qi.age"].endswith("suppression cap 0.02")  # the QI's own cap first
    assert got["qi.sex"].endswith("suppression cap 0.3")


def test_the_plan_rows_are_unchanged() -> None:
    """The plan's combination rows are release_plan's, with null settings columns; every row
    records the settings md5 (the gate plan_settings reads it)."""
    frame = deid_release_plan(json.dumps(RELEASE))
    plan = frame[frame["kind"] != "setting"].reset_index(drop=True)
    expected = release_plan(RELEASE)
    assert plan[list(expected.columns)].equals(expected)
    assert plan["setting"].isna().all() and plan["value"].isna().all()
    assert frame["settings_md5"].nunique() == 1


def _database(tmp_path) -> str:
    """A DuckDB file with the working schema and a diagnostics table (no plan yet)."""
    db = tmp_path / "release.duckdb"
    with duckdb.connect(str(db)) as con:
        con.execute("create schema main_deid_work")
        con.execute("create table main_deid_work.deid_diagnostics as select"
                    " 'risk_summary' as diagnostic, 'age+sex' as combination,"
                    " 'published' as stage, 3 as classes, 5 as smallest_class, 0.2 as max_risk,"
                    " 0.1 as mean_risk, 0.0 as share_above_tau, 5 as min_consistent_exact,"
                    " null as column_name, null as suppressed_cells,"
                    " null as share_cells_suppressed, null as share_records_with_suppression,"
                    " null as non_uniform_entropy, null as column_order")
    return str(db)


def test_summary_reads_the_plans_settings_rows(tmp_path) -> None:
    db = _database(tmp_path)
    frame = deid_release_plan(json.dumps(RELEASE))  # noqa: F841 (read by DuckDB)
    with duckdb.connect(db) as con:
        con.execute("create table main_deid_work.deid_release_plan as select * from frame")
    text = render_summary(db)
    assert "Release r1: algorithm combinations, tau = 0.2 (k = 5), MaxSup = 5.00%" in text


def test_summary_refuses_a_plan_without_settings_rows(tmp_path) -> None:
    """A plan an earlier dbt_deid built (its settings were deid_release_parameters): one clear
    error asking for a build, not a SQL error."""
    db = _database(tmp_path)
    with duckdb.connect(db) as con:
        con.execute("create table main_deid_work.deid_release_plan as select 'verified' as kind,"
                    " 1 as item, 0 as position, 'age' as column_name")
    with pytest.raises(DataError, match="plan has no settings rows .*build the release"):
        render_summary(db)
