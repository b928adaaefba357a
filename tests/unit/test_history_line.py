"""``python -m dbt_deid history line``: a release line version by version (issue 32)."""

from __future__ import annotations

import json

import pandas as pd

from dbt_deid.tools.commands.history import render_line


def _row(version, status, line, failed=""):
    return {"release_name": "patients", "release_version": version, "status": status,
            "recorded_at": "2026-11-26T10:00:00Z", "published_rows": 4000,
            "gates_failed": failed, "line_json": json.dumps(line) if line else None}


def test_a_line_version_by_version() -> None:
    combined = [{"combination": "age+gender", "smallest_class": 5, "min_consistent": 7}]
    history = pd.DataFrame([
        _row(1, "published", {"extends_version": None, "combined": None}),
        _row(2, "published", {"extends_version": 1, "records_added": 40, "records_returned": 0,
                              "records_deleted": 3, "records_changed": 2, "records_kept": 3995,
                              "kept_rows_newly_suppressed": 4,
                              "kept_cells_newly_suppressed": 5, "combined": combined}),
        {**_row(None, "refused", {}, failed="combined_releases"), "published_rows": None},
        _row(3, "published", {"extends_version": None, "restart_reason": "re-keyed by MRN"}),
    ])
    text = render_line(history).splitlines()
    assert text[0].startswith("patients version 1") and text[1] == "  first version of the line"
    assert text[3] == ("  extends version 1: 40 added, 0 returned, 3 deleted, 2 changed, 3995"
                       " kept; 5 cell(s) newly suppressed in 4 earlier record(s)")
    assert text[4] == "  combined view age+gender: smallest class 5, smallest consistent set 7"
    assert text[0] == "patients version 1  2026-11-26T10:00:00Z  rows 4000"
    # a refused attempt published nothing (review 18: its NULL row count printed "rows nan")
    assert text[5] == ("patients refused (combined_releases)  2026-11-26T10:00:00Z  nothing"
                       " published")
    assert text[7] == "  restart: re-keyed by MRN"
    assert render_line(history.iloc[:0]) == "no release recorded"


def test_a_version_extending_another_name_of_the_source() -> None:
    """The line is the source's releases whatever their name (issue 32, item 2): a release
    under another name extends the latest version of the source, and says whose."""
    line = {"extends_version": 3, "extends_release": "living_it", "records_added": 0,
            "records_kept": 4120}
    history = pd.DataFrame([{**_row(1, "published", line), "release_name": "LIVING_IT"},
                            _row(4, "published", {**line, "extends_release": "patients"})])
    text = render_line(history).splitlines()
    assert text[1].startswith("  extends version 3 of living_it: 0 added")
    assert text[3].startswith("  extends version 3: 0 added")


def test_a_claims_or_text_version_says_how_it_extends_the_line() -> None:
    """Claims and text lines (macros/gates/kind_line.sql) have no records added or kept: a later
    version is identical to the one it extends or only deletes rows from it."""
    base = {"kind": "text", "table": "documents", "extends_release": "patients"}
    history = pd.DataFrame([
        _row(2, "published", {**base, "extends_version": 1, "identical_to_extended": True}),
        _row(3, "published", {**base, "extends_version": 2, "identical_to_extended": False,
                              "rows_not_in_extended": 0}),
    ])
    text = render_line(history).splitlines()
    assert text[1] == "  documents: extends version 1: identical"
    assert text[3] == "  documents: extends version 2: rows deleted only (every row a row of it)"
