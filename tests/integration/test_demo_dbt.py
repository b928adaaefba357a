"""dbt integration: the demo exactly as `make demo` builds it (issue 2, seed 000 Table 3).

One build of demo/build_demo.py (the geographic and clinical discharge files, the text release,
the refused claims release), reused by every test here; split from test_release_dbt.py so that
the suite's two workers can run this build and the integration release tests side by side.

Issue 34: the two discharge files follow the paper's order at its public-use threshold
(sample.order population_first, tau 0.05, k = 20): the population is protected, each file is a
10% sample drawn from it, and the gates, which check what is published, refuse both files.
The tests that read the published files now read the protected population (deid_suppressed)
and the files (the gate views deid_sample_file).
"""

from __future__ import annotations

import json

import pandas as pd
import pytest

from dbt_deid.tools.commands.summary import render_summary
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


def test_demo_refuses_the_paper_order_files_and_publishes_text(demo_build) -> None:
    run, release = demo_build
    tables = run.tables()
    assert not {"deid_published", f"{CLINICAL}deid_published"} & tables
    assert "deid_text_published" in tables
    assert "discharge files (seed 000) in the paper's order at tau 0.05: REFUSED" in run.output
    assert "paper 8.4%" in run.output and "paper 9.1%" in run.output  # Tables 9-10 beside ours
    assert "claims release REFUSED at the paper's limits" in run.output
    assert "dbt_deid: phase 1 suppressed" in run.output  # progress through dbt's logger
    # both discharge files refused by the same `dbt build` (their gate tests failed, the
    # package's on-run-end hook wrote a refused row each); the text release published; the
    # claims release refused, a row per table
    history = run.query("select * from deid_release_history order by recorded_at")
    # (and the living line, discharge_analytical, published twice: the test at the end)
    assert sorted(zip(history["release_kind"], history["status"], strict=True)) == [
        ("claims", "refused"), ("claims", "refused"), ("discharge", "published"),
        ("discharge", "published"), ("discharge", "refused"), ("discharge", "refused"),
        ("text", "published")]
    discharge = history[(history["release_kind"] == "discharge")
                        & (history["status"] == "refused")]
    assert sorted(discharge["release_name"]) == ["discharge_clinical", "discharge_geographic"]
    assert discharge["invocation_id"].nunique() == 1
    for failed in discharge["gates_failed"]:
        assert "deid_gate_k_anonymity" in failed  # the file holds classes below k = 20


@pytest.mark.parametrize(("prefix", "place"), [("", "province"), (CLINICAL, "los_days")])
def test_protected_population_holds_the_guarantee_and_the_file_does_not(
        demo_build, prefix, place) -> None:
    """Independent check, for both files of El Emam et al. 2011 Table 3 (geographic: province;
    clinical: length of stay), against the paper's adversary (Tables 7/8: the demographics with
    a diagnosis level and an intervention level; every level an adversary may know is
    verified): the protected population has classes (suppressed = own category) and exact
    consistent sets of at least k = 20, as the paper's order requires (F_j >= 20); the 10% file
    drawn from it does not, which is why it was refused."""
    run, release = demo_build
    k = 20
    verified = plan(run, "verified", prefix)
    assert [place, "age", "gender", "cmg", "short_cci"] in verified
    assert [place, "age", "gender", "diag_chapter", "short_cci"] in verified
    qis = sorted({q for b in verified for q in b})
    population = run.query(f"select * from main_deid_work.{prefix}deid_suppressed")
    assert len(population) == 480_000
    released = population[qis]
    truth = population[[f"{q}__generalized" for q in qis]]
    truth.columns = qis
    for b in verified:
        assert smallest_class(released, b) >= k, b
        # the numpy count (3x faster here than the loops it is unit-tested against)
        assert smallest_consistent_set_fast(truth, released, b) >= k, b
    file = run.query(f"select * from main_deid_work.{prefix}deid_sample_file")
    assert 40_000 < len(file) < 56_000
    assert min(smallest_class(file[qis], b) for b in verified) < k
    name = "discharge_clinical" if prefix else "discharge_geographic"
    history = run.query(f"select status from deid_release_history where release_name = '{name}'")
    assert list(history["status"]) == ["refused"]


def test_the_two_files_share_no_record(demo_build) -> None:
    """El Emam et al. 2011: each PUMF is a different non-overlapping sample of the population,
    drawn after the whole population was protected."""
    run, _ = demo_build
    geographic = set(run.query("select abstract_id from main_deid_work.deid_sample_file")
                     ["abstract_id"])
    clinical = set(run.query(f"select abstract_id from main_deid_work.{CLINICAL}deid_sample_file")
                   ["abstract_id"])
    assert geographic and clinical and not geographic & clinical
    for prefix in ("", CLINICAL):  # both protections ran on the whole population
        n = run.query(f"select count(*) as n from main_deid_work.{prefix}deid_suppressed").n[0]
        assert n == 480_000
    assert "province" not in run.query(
        f"select * from main_deid_work.{CLINICAL}deid_suppressed limit 0").columns
    assert "los_days" not in run.query(
        "select * from main_deid_work.deid_suppressed limit 0").columns


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
    summary = run.query("select * from deid_diagnostics"
                        " where diagnostic = 'risk_summary' and stage = 'published'")
    assert len(summary) == len(plan(run, "verified"))
    # every diagnostic describes what is published, the file (issue 34): the protected
    # population's classes are >= 20 (test above), the 10% file's are not
    n_file = run.query("select count(*) as n from deid_sample_file").n[0]
    assert set(summary["records"]) == {n_file}
    assert (summary["smallest_class"] < 20).any()
    assert (summary["min_consistent_exact"] < 20).any()
    loss = run.query("select * from deid_diagnostics where diagnostic = 'information_loss'")
    assert set(loss["column_name"]) == set(plan(run, "released")[0]) | {"(all quasi-identifiers)"}
    assert set(loss["records"]) == {n_file}
    text = render_summary(run.database)
    assert "Release discharge_geographic:" in text and "tau = 0.05 (k = 20)" in text
    assert "Gates on the file drawn from the protected population" in text
    assert "exact min" in text
    assert "Published table: NOT BUILT" in text and ": refused (failed: " in text
    clinical = render_summary(run.database, release="discharge_clinical")  # `make demo` prints both
    assert "Release discharge_clinical:" in clinical and "Gates on the file" in clinical
    assert "Published table: NOT BUILT" in clinical and "Claims release" not in clinical


def test_record_risk_is_each_records_smallest_class(demo_build) -> None:
    """The per-record prosecutor risk, the diagnostics model's published '(all combinations)'
    risk CDF (read from the pattern table; it was the record-level deid_record_risk, issue 33),
    against an independent count: for every record of the file, the smallest class over the
    combinations (suppressed value = own category); the records at each smallest class size f,
    at risk 1 / f, and every record counted once."""
    run, release = demo_build
    frame = run.query("select * from deid_sample_file")  # the file: what is published
    expected = None
    for b in plan(run, "verified"):
        # each record's class: the records with its tuple, a missing value as its own category
        # (pandas groups NaN/None keys with dropna=False; no record is left out of a group)
        group = frame.groupby(list(b), dropna=False, sort=False).ngroup()
        assert (group >= 0).all()
        sizes = group.map(group.value_counts()).reset_index(drop=True)
        expected = sizes if expected is None else expected.combine(sizes, min)
    got = run.query("select class_size, records, risk from deid_diagnostics"
                    " where diagnostic = 'risk_cdf' and stage = 'published'"
                    " and combination = '(all combinations)' order by class_size")
    want = expected.value_counts().sort_index()
    assert got["class_size"].tolist() == want.index.tolist()
    assert got["records"].tolist() == want.tolist()
    assert int(got["records"].sum()) == len(frame)
    assert (got["risk"] - 1.0 / got["class_size"]).abs().max() < 1e-12


def test_original_values_never_sit_next_to_the_published_marts(demo_build) -> None:
    """Issue 13.8: the target schema (the one shared with recipients) holds only the publish
    models' tables; every working table, and every column holding original or true values,
    is in the working schema."""
    run, _ = demo_build
    from dbt_deid.tools.commands.summary import PUBLISHED_TABLES

    tables = run.query(
        "select table_name, column_name from information_schema.columns"
        " where table_schema = 'main'")
    marts = {"discharge_geographic_mart"}  # the demo's consumer mart of deid_published (skipped)
    shared = set(tables["table_name"])
    # the clinical file's publish model is the package's deid_published of release
    # discharge_clinical
    allowed = (PUBLISHED_TABLES | {CLINICAL + t for t in PUBLISHED_TABLES}
               | {f"{LIVING}__{t}" for t in PUBLISHED_TABLES} | marts)
    assert shared <= allowed, shared - allowed
    assert f"{LIVING}__deid_published" in shared  # the living line, version 2
    assert not {"deid_published", f"{CLINICAL}deid_published"} & shared  # both refused
    assert "deid_text_published" in shared
    leaked = [c for c in tables["column_name"] if c.endswith(("__original", "__generalized"))]
    assert not leaked
    work = run.query("select distinct table_name from information_schema.tables"
                     " where table_schema = 'main_deid_work'")["table_name"]
    assert {"deid_suppressed", "deid_generalized", "deid_hierarchy"} <= set(work)


#: The demo's living line (issue 32 item 5, docs/living-demo.md): seed 000's Analytical File
#: at tau 0.2 over discharge_abstracts_monthly, month 1 published, month 2 a refresh.
LIVING = "discharge_analytical"


def _store_versions(run, qis: list[str]) -> dict[int, pd.DataFrame]:
    """Per version of the living line: its records from the per-record store (what a refresh
    reads), indexed by record key, with the published cells (None = suppressed) and the true
    values (``<qi>__true``)."""
    cols = ", ".join(f'"{q}", coalesce("{q}__generalized", "{q}") as "{q}__true"' for q in qis)
    frame = run.query(f"select release_version, record_key, {cols} from"
                      " main_deid_work.deid_release_records"  # the project's one store
                      f" where release_name = '{LIVING}'")
    frame = frame.astype(object).where(frame.notna(), None)
    return {int(v): g.drop(columns="release_version").set_index("record_key")
            for v, g in frame.groupby("release_version")}


def test_the_living_line_publishes_month_one_and_refreshes_with_month_two(demo_build) -> None:
    """Issue 32 item 5: version 1 (month 1) published, version 2 (month 2: a month of new
    abstracts, 1% withdrawn, 0.1% diagnoses corrected) extends it; the rows of unchanged
    records are identical except for cells newly suppressed for version 2 alone (counted in the
    history); and an independent check of the combined view of both versions (every record
    state with every cell either version revealed, the tests' own numpy count) finds every
    record consistent with at least k = 5 records on every verified combination."""
    run, _ = demo_build
    prefix = f"{LIVING}__"
    history = run.query("select release_version, status, published_rows, line_json from"
                        f" deid_release_history where release_name = '{LIVING}'"
                        " order by recorded_at")
    assert history["status"].tolist() == ["published", "published"]
    assert history["release_version"].tolist() == [1, 2]
    line = json.loads(history["line_json"].iloc[1])
    assert line["extends_version"] == 1
    rows = 198_000
    assert line["records_added"] == rows and line["records_deleted"] == rows // 100
    assert 0 < line["records_changed"] <= rows // 1000
    verified = plan(run, "verified", prefix)
    qis = plan(run, "released", prefix)[0]  # mrdx and cci_code are released, not verified
    versions = _store_versions(run, qis)
    v1, v2 = versions[1], versions[2]
    assert len(v1) == history["published_rows"].iloc[0] == rows
    assert len(v2) == history["published_rows"].iloc[1] == 2 * rows - rows // 100
    # the store's version 2 is what was published: the release's records, keyed as the store
    key = run.query("select key_value from main_deid_work.deid_history_key").iloc[0, 0]
    current = run.query(f"select md5('{key}' || '|' || cast(abstract_id as varchar)) as"
                        f" record_key, {', '.join(qis)} from"
                        f" main_deid_work.{prefix}deid_suppressed")
    current = current.astype(object).where(current.notna(), None).set_index("record_key")
    assert sorted(current.index) == sorted(v2.index)
    assert (current.loc[v2.index, qis].to_numpy() == v2[qis].to_numpy()).all()
    published = run.query(f"select count(*) as n from {prefix}deid_published").n[0]
    assert published == len(v2)
    # unchanged records: identical rows, but for cells newly suppressed in version 2 alone
    truth = [f"{q}__true" for q in qis]
    both = v1.index.intersection(v2.index)
    same = both[(v1.loc[both, truth].to_numpy() == v2.loc[both, truth].to_numpy()).all(axis=1)]
    assert len(both) - len(same) == line["records_changed"]
    before, after = v1.loc[same, qis].to_numpy(), v2.loc[same, qis].to_numpy()
    moved = ~(before == after).all(axis=1)
    assert ((before == after) | (after == None)).all()  # noqa: E711 (never a cell revealed)
    assert int(moved.sum()) == line["kept_rows_newly_suppressed"] < len(same) // 100
    # the combined view: one row per record state, each cell revealed by any version
    states = pd.concat([v1, v2]).reset_index()
    # (groupby's first() takes each column's first non-null value: a cell any version revealed)
    combined = states.groupby(["record_key", *truth], sort=False)[qis].first().reset_index()
    combined = combined.astype(object).where(combined.notna(), None)
    assert len(combined) == 2 * rows + line["records_changed"]
    released = combined[qis]
    true_values = combined[truth].set_axis(qis, axis=1)
    for b in verified:
        assert smallest_class(released, b) >= 5, b
        assert smallest_consistent_set_fast(true_values, released, b) >= 5, b
    assert f"{LIVING} version 2" in run.output and "extends version 1" in run.output
