"""The report a custodian reads first (issue 35, item 4): the status block gives the achieved
figure next to each limit, the rows, version and time; every gate appears, combined_releases
included (from the history); each level comes with its meaning; a refusal changes the heading
and says what to change; and the page fits 1,280 px in a headless browser (no horizontal
overflow), with a screenshot."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dbt_deid.advice import advice_frame, advise
from dbt_deid.dbt_side.glue.report import release_status
from dbt_deid.report.html import render_release_report
from dbt_deid.risk import assess_release
from tests import browser

GATES = ["input_unchanged", "k_anonymity", "exact_k_anonymity", "max_suppression",
         "column_suppression_cap", "row_count"]


def _release() -> dict:
    return {"name": "custodian", "source": "s", "record_id": "id", "k": 5,
            "max_suppression": 0.05, "missing_label": "<missing>",
            "quasi_identifiers": {"age_years_at_admission": {"level": 0},
                                  "sex": {"level": 0}},
            "combinations": [["age_years_at_admission", "sex"]],
            "direct_identifiers": ["name"], "pass_through": ["disposition"]}


def _patterns() -> pd.DataFrame:
    rng = np.random.default_rng(5)
    rows = pd.DataFrame({"age_years_at_admission": rng.integers(0, 95, 800).astype(str),
                         "sex": rng.choice(["F", "M"], 800)})
    return rows.groupby(list(rows.columns), as_index=False).size().rename(
        columns={"size": "n"})


def _age() -> pd.DataFrame:
    values = [str(a) for a in range(95)]

    def band(a: int) -> str:
        return "90+" if a >= 90 else f"{a // 10 * 10}-{a // 10 * 10 + 9}"

    return pd.DataFrame({"level0": values, "level1": [band(int(v)) for v in values]})


def _page(tmp_path, *, refused: bool) -> str:
    patterns = _patterns()
    release = _release()
    if not refused:
        release["max_suppression"] = 1.0
    advice = advise(patterns, {"age_years_at_admission": _age()}, release)
    meanings = {"age_years_at_admission": {0: "original values", 1: "in bands of 10"}}
    frame = advice_frame(advice, meanings)
    published = patterns.copy()
    assessment = assess_release(published, ["age_years_at_admission", "sex"], 0.2,
                                count_column="n", name="custodian")
    gates = pd.DataFrame({
        "gate_order": range(1, len(GATES) + 1), "gate": GATES,
        "passed": [not (refused and g == "max_suppression") for g in GATES],
        "message": [f"{g}: figure and limit" for g in GATES]})
    versions = pd.DataFrame({
        "release_version": [1], "status": ["published"], "recorded_at": ["2026-11-20T10:00:00Z"],
        "published_rows": [800], "package_version": ["0.3.0"], "gates_failed": [""],
        "records_shared": [0], "combined_min_consistent": [None], "invocation_id": ["x"]})
    status = release_status(release, gates, advice=frame, versions=versions,
                            assessments=[assessment],
                            fingerprint={"package version": "0.3.0"})
    comparison = pd.DataFrame({
        "algorithm": ["combinations", "complete"],
        "column_name": ["age_years_at_admission", "age_years_at_admission"],
        "suppressed_cells": [12, 30], "share_cells_suppressed": [0.01, 0.025],
        "records_with_suppression": [10, 20], "share_records_with_suppression": [0.1, 0.2],
        "suppression_entropy": [1.5, 3.0], "smallest_class": [5, 5],
        "min_consistent_exact": [5, 5], "selected": [True, False]})
    return render_release_report([assessment], title="Re-identification risk report: custodian",
                                 status=status, comparison=comparison)


def test_every_gate_and_the_achieved_figures_appear(tmp_path) -> None:
    page = _page(tmp_path, refused=True)
    for gate in [*GATES, "combined_releases"]:
        assert f'<td class="l">{gate}</td>' in page, gate
    assert "1 published version(s) so far" in page
    assert "MaxSup: records with a suppressed quasi-identifier" in page
    assert "k: smallest class, every protected combination" in page
    assert "tau: maximum prosecutor risk" in page
    assert "2 when published (version 1 was published 2026-11-20T10:00:00Z, 800 rows)" in page
    assert "What to change" in page and "nearest levels that pass (1)" in page
    assert "in bands of 10" in page  # the advised level's meaning
    assert "What this release would hold (not published)" in page
    assert "What the published table holds" not in page
    assert "share of cells suppressed" in page  # readable headers


def test_published_page_keeps_its_heading_and_shows_level_meanings(tmp_path) -> None:
    page = _page(tmp_path, refused=False)
    assert "What the published table holds" in page and "What to change" not in page
    assert "<td class=\"l\">original values</td>" in page


@pytest.mark.skipif(browser.chromium() is None,
                    reason="no headless browser: install Debian's chromium (.ci/run does)")
def test_report_fits_1280_pixels_in_a_browser(tmp_path) -> None:
    path = tmp_path / "report.refused.html"
    path.write_text(_page(tmp_path, refused=True), encoding="utf-8")
    box = browser.layout(path, width=1280)
    assert box["tables"] > 5 and box["images"] >= 2, box
    assert box["scroll"] <= box["client"], f"horizontal overflow at 1,280 px: {box}"
    assert box["cut"] == 0, f"a table does not fit its box at 1,280 px: {box}"
    png = browser.screenshot(path, tmp_path / "report.png", width=1280)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
