"""dbt integration: the demo exactly as `make demo` builds it (issue 2, seed 000 Table 3).

One build of demo/build_demo.py (the geographic and clinical discharge files, the text release,
the refused claims release), reused by every test here; split from test_release_dbt.py so that
the suite's two workers can run this build and the integration release tests side by side.
"""

from __future__ import annotations

import pandas as pd
import pytest

from dbt_deid.commands.summary import render_summary
from tests.independent_check import smallest_class, smallest_consistent_set_fast
from tests.integration.dbt_runner import (
    DEMO,
    build_demo,
    project_vars,
)

pytestmark = pytest.mark.dbt

@pytest.fixture(scope="module")
def demo_build(tmp_path_factory) -> tuple:
    tmp = tmp_path_factory.mktemp("demo")
    run = build_demo(tmp)  # the demo exactly as `make demo` builds it
    variables = project_vars(DEMO)
    assert run.ok, run.output[-4000:]
    return run, variables["deid_release"]


#: The demo's clinical file: an extra release (var deid_releases) in the same build, its tables
#: prefixed with its name (docs/projects.md, "Several releases in one project").
CLINICAL = "discharge_clinical__"


def plan(run, kind: str, prefix: str = "") -> list[list[str]]:
    """The combinations (or, for 'released', the one list of released QIs) of
    deid_release_plan (of the release whose tables have ``prefix``)."""
    frame = run.query(f"select * from main_deid_work.{prefix}deid_release_plan"
                      f" where kind = '{kind}'")
    return [list(g.sort_values("position")["column_name"]) for _, g in frame.groupby("item")]


def test_demo_publishes_with_gates_passing(demo_build) -> None:
    run, release = demo_build
    assert "deid_published" in run.tables()
    assert "PASS=" in run.output and "ERROR=0" in run.output  # the discharge and text releases
    assert "claims release REFUSED at the paper's limits" in run.output
    assert "dbt_deid: phase 1 suppressed" in run.output  # progress through dbt's logger
    # both discharge files published by the same `dbt build`, their publish models running on
    # two threads: one history table, one row each; the text release published; the claims
    # release, skipped by `dbt build` after its failing gate tests, has a refused row per table
    # (the package's on-run-end hook) and nothing published
    history = run.query("select * from deid_release_history order by recorded_at")
    assert sorted(zip(history["release_kind"], history["status"], strict=True)) == [
        ("claims", "refused"), ("claims", "refused"), ("discharge", "published"),
        ("discharge", "published"), ("text", "published")]
    discharge = history[history["release_kind"] == "discharge"]
    assert sorted(discharge["release_name"]) == ["discharge_clinical", "discharge_geographic"]
    assert discharge["invocation_id"].nunique() == 1
    assert sorted(discharge["published_relation"].str.split(".").str[-1].str.strip('"')) == [
        "deid_published", f"{CLINICAL}deid_published"]


@pytest.mark.parametrize(("prefix", "place"), [("", "province"), (CLINICAL, "los_days")])
def test_published_files_hold_the_guarantee(demo_build, prefix, place) -> None:
    """Independent check on both published files of El Emam et al. 2011 Table 3 (geographic:
    province;
    clinical: length of stay) against the paper's adversary (Tables 7/8: the demographics with
    a diagnosis level and an intervention level; every level an adversary may know is
    verified): classes (suppressed = own category) and the exact consistent sets against every
    record's true values."""
    run, release = demo_build
    k = 5
    verified = plan(run, "verified", prefix)
    assert [place, "age", "gender", "cmg", "short_cci"] in verified
    assert [place, "age", "gender", "diag_chapter", "short_cci"] in verified
    published = run.query(f"select * from main.{prefix}deid_published")
    assert len(published) > 200_000
    qis = sorted({q for b in verified for q in b})
    truth = run.query(
        "select " + ", ".join(f"{q}__generalized as {q}" for q in qis)
        + f" from main_deid_work.{prefix}deid_suppressed"
    )
    for b in verified:
        assert smallest_class(published, b) >= k, b
        # the numpy count (3x faster here than the loops it is unit-tested against)
        assert smallest_consistent_set_fast(truth, published, b) >= k, b
    name = "discharge_clinical" if prefix else "discharge_geographic"
    history = run.query(f"select status from deid_release_history where release_name = '{name}'")
    assert list(history["status"]) == ["published"]


def test_the_two_files_share_no_record(demo_build) -> None:
    """El Emam et al. 2011: each PUMF is a different non-overlapping sample of the population."""
    run, _ = demo_build
    geographic = set(run.query("select abstract_id from main_deid_work.deid_suppressed")
                     ["abstract_id"])
    clinical = set(run.query(f"select abstract_id from main_deid_work.{CLINICAL}deid_suppressed")
                   ["abstract_id"])
    assert geographic and clinical and not geographic & clinical
    assert "province" not in run.query(
        f"select * from main.{CLINICAL}deid_published limit 0").columns
    assert "los_days" not in run.query("select * from main.deid_published limit 0").columns


def test_every_published_column_has_a_declared_role(demo_build) -> None:
    """On the demo database every published column is a protected QI or a declared
    pass-through column; the record id, direct identifiers and excluded columns are not
    published; the pass-through column is copied unchanged."""
    run, release = demo_build
    source = run.query("select d.* from discharge_abstracts as d join deid_suppressed as s"
                       " using (abstract_id)")  # the geographic file's sample
    published = run.query("select * from deid_published")
    assert len(published) == len(source)
    released = plan(run, "released")[0]
    protected = {q for b in plan(run, "verified") for q in b}
    families = {lv for f in release["hierarchical_qis"].values() for lv in f["levels"]}
    assert set(released) <= protected | families
    assert sorted(published.columns) == sorted([*released, *release["pass_through"]])
    for col in [release["record_id"], *release["direct_identifiers"], *release["excluded"]]:
        assert col not in published.columns
    for col in release["pass_through"]:
        a = source[col].value_counts().sort_index()
        b = published[col].value_counts().sort_index()
        pd.testing.assert_series_equal(a, b)


def test_released_values_are_true_or_suppressed_and_missing_is_distinct(demo_build) -> None:
    run, _ = demo_build
    s = run.query("select * from deid_suppressed")
    for q in plan(run, "released")[0]:
        kept = s[q].notna()
        assert (s.loc[kept, q] == s.loc[kept, f"{q}__generalized"]).all(), q
    source = run.query("select abstract_id, cci_code from discharge_abstracts")
    merged = s.merge(source, on="abstract_id", suffixes=("", "_src"))
    no_intervention = merged["cci_code_src"].isna()
    assert no_intervention.mean() > 0.3
    released = merged.loc[no_intervention, "cci_code"]
    assert set(released.dropna()) == {"<missing>"}
    assert released.notna().mean() > 0.5  # missing stays a published category, not a NULL


def test_risk_summary_and_summary_printer(demo_build) -> None:
    run, release = demo_build
    summary = run.query("select * from deid_risk_summary where stage = 'published'")
    assert len(summary) == len(plan(run, "verified"))
    assert (summary["smallest_class"] >= 5).all()
    assert (summary["min_consistent_exact"] >= 5).all()
    assert (summary["max_risk"] <= 0.2 + 1e-12).all()
    loss = run.query("select * from deid_information_loss")
    assert set(loss["column_name"]) == set(plan(run, "released")[0]) | {"(all quasi-identifiers)"}
    text = render_summary(run.database)
    assert "Release discharge_geographic:" in text
    assert "main.deid_published: 2" in text and "exact min" in text
    assert "Gates: 6 of 6 pass" in text
    clinical = render_summary(run.database, release="discharge_clinical")  # `make demo` prints both
    assert "Release discharge_clinical:" in clinical and "Gates: 6 of 6 pass" in clinical
    assert f"main.{CLINICAL}deid_published: 2" in clinical and "Claims release" not in clinical



def test_record_risk_is_each_records_smallest_class(demo_build) -> None:
    """deid_record_risk (on DuckDB: tuple-level windows joined back to the records) against an
    independent count: for every record, the smallest class over the combinations (suppressed
    value = own category) and prosecutor risk 1 / that size; one row per record."""
    run, release = demo_build
    rid = release["record_id"]
    frame = run.query(
        f"select s.*, r.smallest_class_size, r.prosecutor_risk from deid_suppressed as s"
        f" left join deid_record_risk as r using ({rid})"
    )
    assert len(run.query("select * from deid_record_risk")) == len(frame)
    expected = None
    for b in plan(run, "verified"):
        # each record's class: the records with its tuple, a missing value as its own category
        # (pandas groups NaN/None keys with dropna=False; no record is left out of a group)
        group = frame.groupby(list(b), dropna=False, sort=False).ngroup()
        assert (group >= 0).all()
        sizes = group.map(group.value_counts()).reset_index(drop=True)
        expected = sizes if expected is None else expected.combine(sizes, min)
    assert frame["smallest_class_size"].tolist() == expected.tolist()
    assert (frame["prosecutor_risk"] - 1.0 / expected).abs().max() < 1e-12


def test_original_values_never_sit_next_to_the_published_marts(demo_build) -> None:
    """Issue 13.8: the target schema (the one shared with recipients) holds only the publish
    models' tables; every working table, and every column holding original or true values,
    is in the working schema."""
    run, _ = demo_build
    from dbt_deid.commands.summary import PUBLISHED_TABLES

    tables = run.query(
        "select table_name, column_name from information_schema.columns"
        " where table_schema = 'main'")
    marts = {"discharge_geographic_mart"}  # the demo's consumer mart of deid_published
    shared = set(tables["table_name"])
    # the clinical file's publish model is the package's deid_published of release
    # discharge_clinical
    allowed = PUBLISHED_TABLES | {CLINICAL + t for t in PUBLISHED_TABLES} | marts
    assert shared <= allowed, shared - allowed
    assert {"deid_published", f"{CLINICAL}deid_published"} <= shared
    leaked = [c for c in tables["column_name"] if c.endswith(("__original", "__generalized"))]
    assert not leaked
    work = run.query("select distinct table_name from information_schema.tables"
                     " where table_schema = 'main_deid_work'")["table_name"]
    assert {"deid_suppressed", "deid_generalized", "deid_hierarchy"} <= set(work)
