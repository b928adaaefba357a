"""Identifier injection (issue 13 item 1): every name the package puts into SQL is data.

The source, its lookup hierarchy and the release use column names and values holding double and
single quotes, semicolons, comment markers, newlines, unicode, the internal-looking name ``n``
and a QI whose name differs from its column only in case. The release must build, publish the
right values, and drop nothing (the canary seed must survive the payload of issue 13).
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import duckdb
import pandas as pd
import pytest

from tests.independent_check import smallest_consistent_set
from tests.integration.dbt_runner import (
    INTEGRATION,
    build_release,
    check_settings,
    project_vars,
)
from tests.published_form import published_frame

pytestmark = pytest.mark.dbt

_spec = importlib.util.spec_from_file_location(
    "hostile_names", INTEGRATION / "fixtures" / "hostile_names.py")
h = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(h)


MISSING = "<missing '; -- \"x\" /*>"


def hostile_release(**changes) -> dict:
    release = {
        "name": "hostile 'release'; --",
        "source": "hostile_source",
        "record_id": h.RECORD_ID,
        "direct_identifiers": [h.NAME],
        "quasi_identifiers": {
            h.REGION: {"hierarchy": "hostile_region_hierarchy", "level": 1},
            h.AGE: {"rule": {"type": "interval", "levels": [{"width": 10, "top_code": 90}]},
                    "level": 1},
            h.SEX_QI: {"column": h.SEX_COLUMN, "level": 0},
        },
        "k": 2,
        "max_suppression": 1.0,
        "missing_label": MISSING,
        "pass_through": [h.PASS_N, h.NOTE, "age"],
    }
    release.update(changes)
    return {**project_vars(INTEGRATION), "deid_release": release}


def _tables(db: Path) -> set[tuple[str, str]]:
    with duckdb.connect(str(db), read_only=True) as con:
        return {tuple(r) for r in con.execute(
            "select table_schema, table_name from information_schema.tables").fetchall()}


def _age_label(age: int) -> str:
    return "90+" if age >= 90 else f"{age // 10 * 10}-{age // 10 * 10 + 9}"


def test_hostile_names_and_values_build_and_drop_nothing(it_database, tmp_path) -> None:
    before = _tables(it_database)
    assert ("main", "deid_canary") in before and ("main", "hostile_source") in before
    run = build_release(it_database, tmp_path, hostile_release(), report=True)
    after = _tables(run.database)
    assert before <= after, f"tables dropped: {before - after}"
    assert run.query("select canary from main.deid_canary")["canary"].tolist() == ["alive"]
    assert run.ok, run.output[-4000:]

    src = run.query("select * from main.hostile_source")
    pub = run.query("select * from main.deid_published")
    assert len(pub) == len(src) == 240
    # source order; record id and direct identifier dropped; QI source column replaced by its QI
    columns = [h.REGION, h.AGE, "age", h.SEX_QI, h.PASS_N, h.NOTE]
    assert list(pub.columns) == columns
    truth = run.query("select * from main_deid_work.deid_suppressed")
    qis = [h.REGION, h.AGE, h.SEX_QI]
    both = src.merge(truth[[h.RECORD_ID, *qis]], on=h.RECORD_ID, suffixes=("_src", ""))
    # the published rows are the source's pass-through values next to the released QIs
    # (the released QIs in the form deid_published writes them: docs/published-types.md)
    expected = published_frame(both[columns], hostile_release()["deid_release"]) \
        .astype(str).sort_values(columns).reset_index(drop=True)
    got = pub[columns].astype(str).sort_values(columns).reset_index(drop=True)
    pd.testing.assert_frame_equal(got, expected)
    region = both[h.REGION]
    missing = both[f"{h.REGION}_src"].isna()
    want = both[f"{h.REGION}_src"].map(h.REGION_PARENT).where(~missing, MISSING)
    assert (region.isna() | (region == want)).all()
    assert missing.any()
    age = both[h.AGE]
    assert (age.isna() | (age == both[f"{h.AGE}_src"].map(_age_label))).all()
    assert age.notna().any() and region.notna().any()
    sex = both[h.SEX_QI]
    assert (sex.isna() | (sex == both[h.SEX_COLUMN])).all()

    generalized = truth[[f"{q}__generalized" for q in qis]]
    generalized.columns = qis
    released = truth[qis]
    assert smallest_consistent_set(generalized, released, qis) >= 2
    params = run.query("select setting, value from main_deid_work.deid_release_plan"
                       " where kind = 'setting'")
    assert "hostile 'release'; --" in params["value"].tolist()


def test_issue_13_payload_drops_nothing(it_database, tmp_path) -> None:
    """The fuzz case of issue 13: an interval QI whose column name closes the hierarchy model's
    sub-query and drops a table. With the old quoting deid_hierarchy reported OK and the canary
    was gone; now the name is one quoted identifier and the release models build."""
    variables = hostile_release()
    release = variables["deid_release"]
    release["quasi_identifiers"] = {h.AGE: release["quasi_identifiers"][h.AGE],
                                    h.SEX_QI: release["quasi_identifiers"][h.SEX_QI]}
    release["direct_identifiers"] = [h.NAME, h.REGION]
    run = build_release(it_database, tmp_path, variables, extra=["--exclude", "deid_published"],
                        report=True)
    assert ("main", "deid_canary") in _tables(run.database)
    assert run.ok, run.output[-3000:]
    hierarchy = run.query("select * from main_deid_work.deid_hierarchy")
    assert set(hierarchy["qi_name"]) == {h.AGE, h.SEX_QI}
    ages = hierarchy[(hierarchy["qi_name"] == h.AGE) & (hierarchy["level"] == 1)]
    assert (ages["generalized_value"] == ages["original_value"].astype(int).map(_age_label)).all()


COLLISIONS = [
    ("N", "the count column 'n'"),
    ("Rank_To", "a column of the suppression map"),
    (f"{h.SEX_QI.upper()}", "quasi-identifier 'Sex'"),
    (f"{h.AGE}__ORIGINAL", f"the original-value column of quasi-identifier '{h.AGE}'"),
    (h.NOTE.upper(), f"source column '{h.NOTE}'"),
]


def _colliding(name: str) -> dict:
    """The hostile release's vars with one more QI named ``name``."""
    variables = hostile_release()
    variables["deid_release"]["quasi_identifiers"][name] = {"column": h.SEX_COLUMN, "level": 0}
    return variables


def test_a_name_colliding_with_an_internal_column_fails_the_build_clearly(
    it_database, tmp_path
) -> None:
    """A QI taking the name of the pattern count fails the build naming the setting, before
    deid_generalized is built (every case of COLLISIONS through the same check:
    test_names_colliding_with_internal_or_other_columns_fail_clearly)."""
    name, clash = COLLISIONS[0]
    # the sex QI renamed (not a second QI over its column: two QIs over one column outside a
    # hierarchical family are refused first, by the plan, since review r10's D1)
    variables = hostile_release()
    qis = variables["deid_release"]["quasi_identifiers"]
    qis[name] = qis.pop(h.SEX_QI)
    run = build_release(it_database, tmp_path, variables, report=True)
    assert not run.ok
    assert f"'quasi_identifiers.{name}'" in run.output, run.output[-3000:]
    assert clash in run.output, run.output[-3000:]
    assert "deid_generalized" not in run.tables()


def test_names_colliding_with_internal_or_other_columns_fail_clearly(
    it_database, tmp_path
) -> None:
    """Names are compared ignoring case (DuckDB, Snowflake and others fold them): a QI must not
    take the name of the pattern count, a suppression-map column, another QI's derived column
    or a published source column. Each case through the checks a build runs before its first
    release model (dbt_deid.assert_source_columns on release_config's settings and the
    source's columns), in one dbt process on the integration database."""
    db = tmp_path / "release.duckdb"
    shutil.copy(it_database, db)
    plan = ["run", "--select", "deid_release_plan"]  # release_config reads the plan table
    accepted = ("release_names", hostile_release()["deid_release"])
    runs = check_settings([accepted, *(("release_names", _colliding(name)["deid_release"])
                                       for name, _ in COLLISIONS)], tmp_path, db, first=[plan])
    assert runs[0].ok, runs[0].output[-3000:]
    assert runs[1].ok and "SETTINGS_ACCEPTED" in runs[1].output, runs[1].output[-3000:]
    for (name, clash), run in zip(COLLISIONS, runs[2:], strict=True):
        assert not run.ok, name
        assert f"'quasi_identifiers.{name}'" in run.output, run.output[-3000:]
        assert clash in run.output, run.output[-3000:]
