"""``bench/bench_baseline.py``: the pure parts of ``bench_engines.py --baseline-rev`` (issue 33's
acceptance, old and new package in one run on the same records). No timing is asserted: the
build records below are made up."""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd
import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bench"))
try:
    from bench_baseline import baseline_rows, frame_fingerprint, release_nodes, release_selection
finally:
    sys.path.remove(str(REPO / "bench"))


def _run(engine: str, pkg: str, wall: float, nodes: dict[str, float], code: int = 0,
         sha: str | None = "abc", rows: int = 100) -> dict:
    return {"engine": engine, "rows": rows, "package": pkg, "wall": wall, "code": code,
            "source_sha256": sha,
            "nodes": {**{n: {"seconds": s, "kind": "test" if n.startswith("t_") else "model",
                             "release": True} for n, s in nodes.items()},
                      "discharge_abstracts": {"seconds": 50.0, "kind": "model",
                                              "release": False}}}


def test_ratios_are_new_over_old_medians_of_the_successful_builds() -> None:
    runs = [_run("duckdb", "old", 100.0, {"a": 30.0, "b": 10.0, "t_x": 2.0}),
            _run("duckdb", "new", 50.0, {"a": 12.0, "t_x": 1.0}),
            _run("duckdb", "old", 120.0, {"a": 40.0, "b": 10.0, "t_x": 2.0}),
            _run("duckdb", "new", 70.0, {"a": 14.0, "t_x": 1.0}),
            _run("duckdb", "old", 10.0, {}, code=1),  # failed: not in the medians
            _run("postgres", "new", 80.0, {"a": 20.0})]  # no old build: no row
    [row] = baseline_rows(runs)
    assert (row["engine"], row["rows"], row["failed"], row["same_source"]) == (
        "duckdb", 100, 1, True)
    assert row["old_wall"] == [100.0, 120.0] and row["new_wall"] == [50.0, 70.0]
    assert row["old_release"] == [42.0, 52.0]  # the source model is not a release node
    assert row["wall_ratio"] == pytest.approx(60.0 / 110.0)
    assert row["release_ratio"] == pytest.approx(14.0 / 47.0)


def test_no_ratio_when_the_source_differs_or_a_package_never_succeeded() -> None:
    differ = baseline_rows([_run("duckdb", "old", 100.0, {"a": 1.0}, sha="one"),
                            _run("duckdb", "new", 50.0, {"a": 1.0}, sha="two")])
    assert differ[0]["same_source"] is False and differ[0]["wall_ratio"] is None
    failed = baseline_rows([_run("spark", "old", 100.0, {"a": 1.0}, code=2),
                            _run("spark", "new", 50.0, {"a": 1.0})])
    assert failed[0]["wall_ratio"] is None and failed[0]["old_wall_median"] is None
    assert failed[0]["new_wall_median"] == 50.0


def test_release_nodes_counts_models_and_tests_of_the_package_only() -> None:
    run = _run("duckdb", "old", 1.0, {"a": 1, "b": 1, "t_x": 1, "t_y": 1, "t_z": 1})
    run["nodes"]["a"]["kind"] = "python"
    run["nodes"]["dbt_deid-on-run-end-0"] = {"seconds": 0.1, "kind": "operation",
                                             "release": True}
    assert release_nodes(run) == (2, 3)


def test_the_fingerprint_changes_with_any_value_the_order_or_a_dtype() -> None:
    frame = pd.DataFrame({"id": [1, 2, 3], "cci": ["A1", None, "B2"], "age": [30, 41, 52]})
    base = frame_fingerprint(frame)
    assert frame_fingerprint(frame.copy()) == base
    changed = frame.copy()
    changed.loc[1, "cci"] = "A1"
    assert frame_fingerprint(changed) != base
    assert frame_fingerprint(frame.iloc[::-1].reset_index(drop=True)) != base
    assert frame_fingerprint(frame.astype({"age": "float64"})) != base
    assert frame_fingerprint(frame[["id", "age", "cci"]]) != base


def test_the_selection_is_read_from_the_source_text_without_importing_it() -> None:
    source = ("import dbt_deid.not_installed\nX = 1\n"
              "RELEASE_SELECTION = ['--select', 'package:dbt_deid',\n"
              "                     '--exclude', 'dbt_deid.ola']\n")
    assert release_selection(source) == ["--select", "package:dbt_deid", "--exclude",
                                         "dbt_deid.ola"]
    current = release_selection((REPO / "bench" / "bench_seed000.py").read_text())
    assert current[0] == "--select" and "package:dbt_deid" in current
    with pytest.raises(ValueError, match="no RELEASE_SELECTION"):
        release_selection("SELECTION = ['--select']\n")
    with pytest.raises(ValueError, match="not a list of strings"):
        release_selection("RELEASE_SELECTION = ['--select', 3]\n")
