"""The heuristic search beyond the optimal search's node budget (issue 36, item 3): Lightning
(Prasser et al. 2016) on OLA's exact node test. Checked here against an evaluation of every
node written from the evaluator and the metric formulas only: the returned node passes MaxSup,
equals the optimum when the search proves it (small lattices, seeded random problems), never
beats the optimum and never falls below its own lower bound; the search is deterministic,
stops at its budgets, and runs automatically beyond ``max_nodes`` (never below)."""

from __future__ import annotations

import itertools
import logging

import numpy as np
import pandas as pd
import pytest

from dbt_deid.errors import ConfigError
from dbt_deid.ola import run_ola
from dbt_deid.ola.budget import SearchBudget
from dbt_deid.ola.evaluate import NodeEvaluator, _row_ranks, aggregate
from dbt_deid.ola.heuristic import lightning_search
from dbt_deid.ola.lattice import Lattice
from dbt_deid.ola.metrics import METRICS, Metrics, selection_key
from dbt_deid.ola.settings import ola_settings
from dbt_deid.tools.synthetic.tables import random_problem


class _Quiet:
    def info(self, msg: str) -> None:
        pass


def _setup(seed: int, n_qis: int, k: int, max_sup: float, n_records: int = 300):
    frame, hierarchies = random_problem(seed, n_qis=n_qis, n_records=n_records)
    ev = NodeEvaluator.from_frame(frame, hierarchies, k, max_sup, count_column=None)
    metrics = Metrics(ev.hierarchies, ev.leaf_table, k)
    lattice = Lattice.from_heights({c: h.height for c, h in hierarchies.items()})
    return frame, hierarchies, ev, metrics, lattice


def _exhaustive(ev: NodeEvaluator, metrics: Metrics, lattice: Lattice, metric: str):
    """Every node's (suppressed, value), and the best passing node's key (None if none)."""
    table = {}
    best = None
    for node in lattice.all_nodes():
        t = ev.table(node)
        table[node] = (t.suppressed(ev.k), metrics.value(metric, t))
        if table[node][0] <= ev.allowed:
            key = selection_key(table[node][1], node)
            best = key if best is None or key < best else best
    return table, best


CASES = [(seed, metric, max_sup) for seed, metric, max_sup in itertools.product(
    range(6), METRICS, (0.0, 0.05, 0.3))]


@pytest.mark.parametrize(("seed", "metric", "max_sup"), CASES)
def test_unbounded_search_proves_the_optimum(seed: int, metric: str, max_sup: float) -> None:
    """Without a budget the queue empties: the node is the best passing node of the lattice
    (same node, same score), checked against every node's exact evaluation."""
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 6))
    _, _, ev, metrics, lattice = _setup(seed, int(rng.integers(2, 5)), k, max_sup)
    table, best = _exhaustive(ev, metrics, lattice, metric)
    h = lightning_search(ev, metrics, lattice, metric, seconds=None, logger=_Quiet())
    if best is None:
        assert h.node is None and h.stopped == "no passing node"
        return
    assert h.proved_optimal and h.stopped == "exhausted" and h.gap_bound == 0.0
    assert h.node == best[2]
    assert h.scored.value == pytest.approx(table[best[2]][1], rel=1e-12)
    assert h.scored.suppressed == table[h.node][0] <= ev.allowed


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("checks", [1, 3, 10, 40])
def test_budgeted_node_passes_and_is_bracketed(seed: int, checks: int) -> None:
    """With a node budget the search stops early; whatever it returns passes MaxSup under the
    exact evaluator, is no better than the optimum, and the optimum is no lower than the
    reported lower bound; it checks at most ``checks`` nodes."""
    rng = np.random.default_rng(100 + seed)
    _, _, ev, metrics, lattice = _setup(100 + seed, 4, int(rng.integers(2, 6)), 0.05, 400)
    table, best = _exhaustive(ev, metrics, lattice, "entropy")
    h = lightning_search(ev, metrics, lattice, "entropy", seconds=None, max_checks=checks,
                         logger=_Quiet())
    assert h.checked <= checks
    if best is None:
        assert h.node is None
        return
    assert h.node is not None  # the top node passes whenever any node does
    suppressed, value = table[h.node]
    assert suppressed <= ev.allowed and h.scored.suppressed == suppressed
    assert h.scored.value == pytest.approx(value, rel=1e-12)
    optimum = table[best[2]][1]
    assert h.scored.value >= optimum - 1e-9 * max(1.0, abs(optimum))
    assert h.lower_bound <= optimum + 1e-9 * max(1.0, abs(optimum))
    if h.gap_bound is not None and optimum > 0:
        assert h.scored.value / optimum - 1 <= h.gap_bound + 1e-9


def test_deterministic() -> None:
    """Same input, same budget: the same checks in the same order and the same node."""
    _, _, ev1, m1, lattice = _setup(7, 4, 3, 0.05, 500)
    _, _, ev2, m2, _ = _setup(7, 4, 3, 0.05, 500)
    for checks in (5, 25, None):
        a = lightning_search(ev1, m1, lattice, "loss", seconds=None, max_checks=checks,
                             logger=_Quiet())
        b = lightning_search(ev2, m2, lattice, "loss", seconds=None, max_checks=checks,
                             logger=_Quiet())
        assert [c.node for c in a.trace] == [c.node for c in b.trace]
        assert (a.node, a.scored, a.lower_bound) == (b.node, b.scored, b.lower_bound)


def test_time_budget_stops_the_search_and_logs_progress() -> None:
    """A clock that advances one second per reading: with ``seconds=5`` the search stops after
    a handful of checks, says why, and the progress lines give work done, budget left and
    elapsed time."""
    _, _, ev, metrics, lattice = _setup(3, 4, 3, 0.05, 500)
    ticks = itertools.count()
    lines: list[str] = []

    class _Log:
        def info(self, msg: str) -> None:
            lines.append(msg)

    h = lightning_search(ev, metrics, lattice, "entropy", seconds=5, logger=_Log(),
                         every=2.0, clock=lambda: float(next(ticks)))
    assert h.stopped == "time" and not h.proved_optimal
    assert 1 <= h.checked <= 5 and h.node is not None
    running = [x for x in lines if "running" in x]
    assert running and "nodes checked" in running[0] and "s of 5 s left" in running[0]
    assert "s elapsed" in running[0]
    assert "done (time" in lines[-1]


def test_automatic_switch_beyond_max_nodes_and_never_below() -> None:
    frame, hierarchies = random_problem(11, n_qis=4, n_records=400)
    size = Lattice.from_heights({c: h.height for c, h in hierarchies.items()}).size
    at = run_ola(frame, hierarchies, 3, 0.05, count_column=None,
                 budget=SearchBudget(max_nodes=size), logger=_Quiet())
    assert at.search_kind == "optimal" and at.heuristic is None and at.k_minimal
    over = run_ola(frame, hierarchies, 3, 0.05, count_column=None,
                   budget=SearchBudget(max_nodes=size - 1), logger=_Quiet())
    assert over.search_kind == "heuristic" and over.heuristic is not None
    assert over.k_minimal == [] and over.chosen == at.chosen  # proved on a small lattice
    assert over.chosen_is_optimal and over.metric_value == pytest.approx(at.metric_value)
    report = over.node_report_frame()
    assert list(report["search"]) == ["heuristic"] and report["chosen"].all()
    d = over.to_dict()
    assert d["search"] == "heuristic" and d["heuristic"]["algorithm"] == "lightning"
    assert at.to_dict()["search"] == "optimal"
    # the exhaustive reference search still refuses a lattice over the budget
    with pytest.raises(ConfigError, match="max_nodes"):
        run_ola(frame, hierarchies, 3, 0.05, count_column=None, search="exhaustive",
                budget=SearchBudget(max_nodes=size - 1), logger=_Quiet())


def test_heuristic_budget_is_applied_from_the_settings(caplog) -> None:
    """generalization.heuristic_nodes reaches the search: beyond max_nodes with a node budget
    of 2, exactly the top node and the starting node are checked."""
    frame, hierarchies = random_problem(5, n_qis=4, n_records=400)
    release = {"quasi_identifiers": {c: {} for c in hierarchies}, "generalization": {
        "search": "ola", "max_nodes": 1, "heuristic_nodes": 2, "heuristic_seconds": 600}}
    settings = ola_settings(release)
    assert settings.budget.heuristic_seconds == 600 and settings.budget.heuristic_nodes == 2
    with caplog.at_level(logging.INFO, logger="dbt_deid.ola"):
        r = run_ola(frame, hierarchies, 3, 0.3, count_column=None, budget=settings.budget)
    assert r.search_kind == "heuristic" and r.heuristic.checked == 2
    assert r.heuristic.stopped == "checks"
    assert "running the heuristic search" in caplog.text
    assert ola_settings({"quasi_identifiers": {}, "generalization": {"search": "ola"}}
                        ).budget.heuristic_seconds == 30.0
    for bad in ({"heuristic_seconds": 0}, {"heuristic_seconds": None},
                {"heuristic_nodes": 0}, {"heuristic_nodes": 1.5}):
        with pytest.raises(ConfigError, match="generalization.heuristic_"):
            ola_settings({"quasi_identifiers": {}, "generalization": {"search": "ola", **bad}})


def test_no_passing_node_ends_at_the_top() -> None:
    _, _, ev, metrics, lattice = _setup(2, 3, 400, 0.0, 100)
    h = lightning_search(ev, metrics, lattice, "entropy", logger=_Quiet())
    assert h.node is None and h.checked == 1 and h.stopped == "no passing node"


@pytest.mark.parametrize("seed", range(5))
def test_wide_tables_group_like_whole_row_sort(seed: int) -> None:
    """Pattern tables whose mixed-radix key overflows int64 are grouped column by column with
    the same classes in the same (lexicographic) order as numpy's whole-row unique."""
    rng = np.random.default_rng(seed)
    d = 20
    radices = [int(r) for r in rng.integers(2, 40, size=d)]
    base = np.column_stack([rng.integers(0, r, size=60) for r in radices]).astype(np.int32)
    codes = base[rng.integers(0, 60, size=3000)]
    counts = rng.integers(1, 5, size=len(codes))
    assert np.prod([float(r) for r in radices]) >= 2.0**62
    u, c = aggregate(codes, counts, radices)
    want_u, inverse = np.unique(codes, axis=0, return_inverse=True)
    want_c = np.bincount(inverse.ravel(), weights=counts)
    assert np.array_equal(u, want_u) and np.array_equal(c, want_c.astype(np.int64))
    first, ranks = _row_ranks(codes, radices)
    assert np.array_equal(codes[first][ranks], codes)


def test_run_ola_on_many_columns_returns_a_passing_node() -> None:
    """A 24-column table (a lattice of 2^24 x 3^... nodes, far over the default budget): the
    heuristic runs by default and its node passes under the exact evaluator."""
    rng = np.random.default_rng(0)
    n, d = 600, 24
    frame = pd.DataFrame({f"c{j}": rng.integers(0, 3, size=n).astype(str) for j in range(d)})
    hier = {f"c{j}": pd.DataFrame({"l0": ["0", "1", "2"], "l1": ["0-1", "0-1", "2"],
                                   "l2": ["*", "*", "*"]}) for j in range(d)}
    r = run_ola(frame, hier, 3, 0.05, count_column=None, logger=_Quiet(),
                budget=SearchBudget(heuristic_nodes=300))
    assert r.search_kind == "heuristic" and r.lattice_size == 3**d
    ev = NodeEvaluator.from_frame(frame, r.hierarchies, 3, 0.05, count_column=None)
    assert ev.suppressed(r.chosen) == r.suppressed <= ev.allowed
