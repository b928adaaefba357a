"""The released node is the best passing node of the whole lattice under the metric (issue 18,
item 1), checked against an exhaustive evaluation of every node written here from the evaluator
and the metric formulas only (no search code)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dbt_deid.ola import load_hierarchies, run_ola
from dbt_deid.ola.evaluate import NodeEvaluator
from dbt_deid.ola.lattice import Lattice
from dbt_deid.ola.metrics import METRICS, Metrics, selection_key
from dbt_deid.tools.synthetic.tables import random_problem

ADULT_QIS = ["sex", "age", "race", "marital-status", "education", "native-country",
             "workclass", "occupation", "salary-class"]


def _every_node(frame, hierarchies, k, count_column):
    """Suppressed records and every metric of every node (one pass, bottom-up)."""
    ev = NodeEvaluator.from_frame(frame, hierarchies, k, 0.0, count_column=count_column)
    metrics = Metrics(ev.hierarchies, ev.leaf_table, k)
    lattice = Lattice.from_heights({c: h.height for c, h in hierarchies.items()})
    out = {}
    for node in lattice.all_nodes():
        t = ev.table(node)
        out[node] = (t.suppressed(k), {m: metrics.value(m, t) for m in METRICS})
    return out, ev.n_records


def _best_passing(table, allowed, metric):
    best = None
    for node, (suppressed, values) in table.items():
        if suppressed <= allowed:
            key = selection_key(values[metric], node)
            if best is None or key < best[0]:
                best = (key, node, values[metric], suppressed)
    return best


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("max_sup", [0.0, 0.05, 1.0])
def test_released_node_is_the_best_passing_node(seed: int, max_sup: float) -> None:
    rng = np.random.default_rng(seed)
    frame, hierarchies = random_problem(seed, n_qis=int(rng.integers(2, 5)), n_records=250)
    k = int(rng.integers(2, 8))
    table, n = _every_node(frame, hierarchies, k, None)
    allowed = int(np.floor(max_sup * n + 1e-9))
    for metric in METRICS:
        r = run_ola(frame, hierarchies, k, max_sup, metric, count_column=None)
        want = _best_passing(table, allowed, metric)
        if want is None:
            assert r.chosen is None
            continue
        assert r.chosen == want[1], metric
        assert r.metric_value == pytest.approx(want[2], rel=1e-12), metric
        assert r.suppressed == want[3]


def test_the_optimum_can_lie_above_every_k_minimal_node() -> None:
    """At MaxSup 100% every node passes, the bottom is the only k-minimal node, and it
    suppresses every record in a small class: the best node is higher."""
    frame, hierarchies = random_problem(3, n_qis=3, n_records=300)
    r = run_ola(frame, hierarchies, 5, 1.0, "entropy", count_column=None, all_metrics=True)
    assert [x.node for x in r.k_minimal] == [(0, 0, 0)] and r.best_k_minimal == (0, 0, 0)
    assert r.chosen != (0, 0, 0) and not r.chosen_is_k_minimal
    assert r.metric_value < r.k_minimal[0].metrics["entropy"]
    report = r.node_report_frame()
    assert list(report["k_minimal"]) == [True, False]
    assert list(report["best_k_minimal"]) == [True, False]
    assert list(report["chosen"]) == [False, True] == list(report["optimal"])


@pytest.mark.parametrize("k", [5, 20])
def test_adult_grid_matches_exhaustive_search(adult_dir: Path, k: int) -> None:
    """Adult (30,162 records, 12,960 nodes): for MaxSup 0, 1, 5 and 100% and every metric the
    released node is the best passing node of the lattice, with the same score."""
    frame = pd.read_csv(adult_dir / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    patterns = frame.groupby(ADULT_QIS).size().reset_index(name="n")
    hierarchies = load_hierarchies(
        {c: adult_dir / f"adult_hierarchy_{c}.csv" for c in ADULT_QIS})
    table, n = _every_node(patterns, hierarchies, k, "n")
    assert n == 30162 and len(table) == 12960
    wrong = []
    for max_sup in (0.0, 0.01, 0.05, 1.0):
        allowed = int(np.floor(max_sup * n + 1e-9))
        for metric in METRICS:
            r = run_ola(patterns, hierarchies, k, max_sup, metric)
            want = _best_passing(table, allowed, metric)
            got = (r.chosen, r.metric_value, r.suppressed)
            if got[0] != want[1] or abs(got[1] - want[2]) > 1e-9 * abs(want[2]) \
                    or got[2] != want[3]:
                wrong.append((max_sup, metric, got, want[1:]))
    assert wrong == []
