"""OLA end to end on a pattern table: the entry point for dbt Python models and the CLI.

Steps (El Emam et al. 2009; El Emam et al. 2009 (CJHP) "Apply Generalization and Suppression"):
encode the pattern table through the hierarchies, build the lattice capped by the maximum acceptable
generalization per QI (El Emam et al. 2009 (CJHP) Table 2), find every k-minimal node
(:func:`path_search`, or the paper's own traversal :func:`ola_search`), then the best passing node
of the whole lattice under the metric (:func:`optimum_search`; ties: lower height, then
lexicographic node). The paper releases the best k-minimal node; without suppression that is the
same node, with suppression the best passing node can lie above every k-minimal node (see
:mod:`dbt_deid.ola.optimum`), and both are reported.

A lattice larger than the budget's ``max_nodes`` is too large for the optimal search (it keeps a
status byte per node): the heuristic search of :mod:`dbt_deid.ola.heuristic` (Lightning, Prasser
et al. 2016) runs instead, automatically, within ``heuristic_seconds``; the result says which
search produced it (``search_kind``: "optimal" or "heuristic") and, for the heuristic, how far
from the optimum its node can at most be.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from dbt_deid.errors import ConfigError
from dbt_deid.ola.budget import Progress, SearchBudget
from dbt_deid.ola.combinations import combination_indices, describe, small_in_any
from dbt_deid.ola.evaluate import NodeEvaluator, aggregate
from dbt_deid.ola.heuristic import HeuristicResult, lightning_search
from dbt_deid.ola.hierarchies import Hierarchy
from dbt_deid.ola.lattice import Lattice, Node
from dbt_deid.ola.metrics import DEFAULT_METRIC, METRICS, Metrics, check_metric, selection_key
from dbt_deid.ola.optimum import Scored, exhaustive_optimum, optimum_search
from dbt_deid.ola.search import OlaSearchResult, exhaustive_search, ola_search, path_search
from dbt_deid.progress import Logger, get_logger

#: the most evaluated nodes kept for the risk-utility picture (:attr:`OlaResult.trace`); beyond
#: it the first ones in evaluation order are kept and :attr:`OlaResult.trace_dropped` counts the
#: others (the released node is always kept)
TRACE_LIMIT = 2000


@dataclass
class NodeReport:
    """One node: its levels, the records it would suppress and its metrics."""

    node: Node
    suppressed: int
    metrics: dict[str, float]


@dataclass(frozen=True)
class EvaluatedNode:
    """One node the search evaluated, for the risk-utility picture (as ARX's GUI plots the
    evaluated transformations): its levels, the records in classes smaller than k, its value of
    the release's metric and whether it passes MaxSup."""

    node: Node
    suppressed: int
    value: float
    passes: bool


class Trace:
    """The evaluated nodes in evaluation order, at most ``limit`` of them (the first ones);
    ``dropped`` counts the nodes evaluated beyond the limit."""

    def __init__(self, limit: int | None = None) -> None:
        self.limit = TRACE_LIMIT if limit is None else limit
        self.nodes: dict[Node, EvaluatedNode] = {}
        self.dropped = 0

    @property
    def full(self) -> bool:
        return len(self.nodes) >= self.limit

    def add(self, node: Node, suppressed: int, value: float, passes: bool,
            force: bool = False) -> None:
        node = tuple(int(v) for v in node)
        if node in self.nodes:
            return
        if self.full and not force:
            self.dropped += 1
            return
        self.nodes[node] = EvaluatedNode(node, int(suppressed), float(value), bool(passes))

    def items(self) -> list[EvaluatedNode]:
        return list(self.nodes.values())


@dataclass
class OlaResult:
    """The outcome of :func:`run_ola`. ``chosen`` is the released node: the best passing node
    of the lattice under ``metric`` (None when no node passes: even the top node leaves more
    than MaxSup of the records in classes smaller than k). ``k_minimal`` reports every
    k-minimal node (the paper's candidates) and ``best_k_minimal`` the paper's choice among
    them; ``optimal`` reports the chosen node (every metric)."""

    names: tuple[str, ...]
    k: int
    max_suppression: float
    metric: str
    n_records: int
    heights: tuple[int, ...]
    lattice: Lattice
    chosen: Node | None
    k_minimal: list[NodeReport]
    evaluated: int
    lattice_size: int
    seconds: float
    search: OlaSearchResult
    hierarchies: dict[str, Hierarchy] = field(repr=False, default_factory=dict)
    optimal: NodeReport | None = None
    best_k_minimal: Node | None = None
    optimum_evaluated: int = 0
    passing_nodes: int = 0
    search_kind: str = "optimal"
    heuristic: HeuristicResult | None = None
    #: every node the search evaluated (at most :data:`TRACE_LIMIT`, the first in evaluation
    #: order, plus the released node), with its suppression and metric value
    trace: list[EvaluatedNode] = field(default_factory=list, repr=False)
    #: evaluated nodes not kept in ``trace`` (beyond :data:`TRACE_LIMIT`)
    trace_dropped: int = 0

    @property
    def chosen_is_optimal(self) -> bool:
        """True when the chosen node is known to be the best passing node of the lattice: the
        optimal search's node, or the heuristic's when it proved it (its queue emptied)."""
        if self.chosen is None:
            return False
        return self.search_kind == "optimal" or bool(self.heuristic and
                                                     self.heuristic.proved_optimal)
    #: the protected combinations nodes were judged on (QI positions); None: all QIs at once
    #: (:mod:`dbt_deid.ola.combinations`)
    combinations: tuple[tuple[int, ...], ...] | None = None

    @property
    def judged_by(self) -> str:
        """How a node was judged: all-QI classes, or each combination's classes."""
        return describe(self.names, self.combinations)

    @property
    def chosen_report(self) -> NodeReport | None:
        return self.optimal

    @property
    def metric_value(self) -> float | None:
        r = self.chosen_report
        return None if r is None else r.metrics[self.metric]

    @property
    def suppressed(self) -> int | None:
        r = self.chosen_report
        return None if r is None else r.suppressed

    @property
    def chosen_is_k_minimal(self) -> bool:
        return self.chosen is not None and any(r.node == self.chosen for r in self.k_minimal)

    def chosen_levels(self) -> dict[str, int] | None:
        return None if self.chosen is None else dict(zip(self.names, self.chosen, strict=True))

    def chosen_levels_frame(self) -> pd.DataFrame:
        """One row per QI: column, chosen level (null when no node passes), lattice minimum
        and maximum level, hierarchy height."""
        return pd.DataFrame({
            "column": list(self.names),
            "level": pd.array(
                list(self.chosen) if self.chosen else [None] * len(self.names), dtype="Int64"
            ),
            "min_level": list(self.lattice.min_levels),
            "max_level": list(self.lattice.max_levels),
            "height": list(self.heights),
        })

    def reports(self) -> list[tuple[NodeReport, bool]]:
        """The k-minimal nodes, then the chosen node when it is not one of them, each with
        whether it is k-minimal."""
        out = [(r, True) for r in self.k_minimal]
        if self.optimal is not None and not self.chosen_is_k_minimal:
            out.append((self.optimal, False))
        return out

    def node_report_frame(self) -> pd.DataFrame:
        """One row per k-minimal node, plus the chosen node when it is not k-minimal: a level
        column per QI, height, suppressed records and share, every metric, and the flags
        ``k_minimal``, ``best_k_minimal`` (the paper's choice), ``optimal`` and ``chosen``
        (the released node, the optimal one), and ``search`` (which search chose it: optimal or
        heuristic; the heuristic reports no k-minimal node, and its node is ``optimal`` only
        when it proved it)."""
        rows = []
        for r, is_kmin in self.reports():
            row: dict[str, Any] = dict(zip(self.names, r.node, strict=True))
            row["height"] = sum(r.node)
            row["suppressed"] = r.suppressed
            row["suppressed_share"] = r.suppressed / self.n_records
            row.update({m: r.metrics.get(m) for m in METRICS})
            row["k_minimal"] = is_kmin
            row["best_k_minimal"] = r.node == self.best_k_minimal
            row["chosen"] = r.node == self.chosen
            row["optimal"] = row["chosen"] and self.chosen_is_optimal
            row["search"] = self.search_kind
            rows.append(row)
        cols = [*self.names, "height", "suppressed", "suppressed_share", *METRICS, "k_minimal",
                "best_k_minimal", "optimal", "chosen", "search"]
        return pd.DataFrame(rows, columns=cols)

    def trace_frame(self) -> pd.DataFrame:
        """The evaluated nodes (:attr:`trace`) in the layout of ``deid_ola_search`` that the
        risk-utility picture reads (:mod:`dbt_deid.report.risk_utility`): a level column per
        QI, ``role`` (evaluated), ``suppressed``, ``suppressed_share``, ``passes``,
        ``chosen``, the metric's column, and the run's metric, MaxSup and nodes evaluated."""
        rows = []
        for e in self.trace:
            row: dict[str, Any] = dict(zip(self.names, e.node, strict=True))
            row.update(role="evaluated", suppressed=e.suppressed,
                       suppressed_share=e.suppressed / self.n_records, passes=e.passes,
                       chosen=e.node == self.chosen, **{self.metric: e.value},
                       metric=self.metric, max_suppression=self.max_suppression,
                       nodes_evaluated=self.evaluated)
            rows.append(row)
        cols = [*self.names, "role", "suppressed", "suppressed_share", "passes", "chosen",
                self.metric, "metric", "max_suppression", "nodes_evaluated"]
        return pd.DataFrame(rows, columns=cols)

    def to_dict(self) -> dict[str, Any]:
        best = next((r for r in self.k_minimal if r.node == self.best_k_minimal), None)
        return {
            "search": self.search_kind,
            "chosen_is_optimal": self.chosen_is_optimal,
            "heuristic": None if self.heuristic is None else self.heuristic_summary(),
            "k": self.k,
            "max_suppression": self.max_suppression,
            "metric": self.metric,
            "combinations": None if self.combinations is None else [
                [self.names[j] for j in c] for c in self.combinations],
            "judged_by": self.judged_by,
            "records": self.n_records,
            "chosen": self.chosen_levels(),
            "metric_value": self.metric_value,
            "suppressed_records": self.suppressed,
            "chosen_is_k_minimal": self.chosen_is_k_minimal,
            "best_k_minimal": None if best is None else {
                "levels": dict(zip(self.names, best.node, strict=True)),
                "suppressed_records": best.suppressed, "metric_value": best.metrics[self.metric]},
            "nodes_evaluated": self.evaluated,
            "optimum_nodes_evaluated": self.optimum_evaluated,
            "passing_nodes": self.passing_nodes,
            "lattice_size": self.lattice_size,
            "seconds": round(self.seconds, 4),
            "k_minimal": [
                {"levels": dict(zip(self.names, r.node, strict=True)),
                 "suppressed_records": r.suppressed, "metrics": r.metrics}
                for r in self.k_minimal
            ],
        }

    def heuristic_summary(self) -> dict[str, Any]:
        """The heuristic search's figures: algorithm, nodes checked and expanded, why it
        stopped, whether it proved its node optimal, the lower bound of the optimum's metric
        and ``gap_bound``, how far above the optimum the node can at most be (a share)."""
        h = self.heuristic
        if h is None:
            raise ConfigError("the optimal search produced this result; no heuristic ran")
        return {"algorithm": "lightning", "nodes_checked": h.checked,
                "nodes_expanded": h.expanded, "stopped": h.stopped,
                "proved_optimal": h.proved_optimal, "lower_bound": h.lower_bound,
                "gap_bound": h.gap_bound, "seconds": round(h.seconds, 4),
                "start": dict(zip(self.names, h.start, strict=True))}

    def apply(self, frame: pd.DataFrame, count_column: str | None = "n") -> pd.DataFrame:
        """Generalize a pattern (or record) table to the chosen node and suppress (set to null)
        every QI of the records in classes smaller than k; adds a boolean ``suppressed``
        column. Record-level suppression as OLA counts it; cell-level suppression (El Emam et al.
        2009 (CJHP)) is a separate step."""
        if self.chosen is None:
            raise ConfigError("no node passes: nothing to apply")
        codes = []
        radices = []
        for c, lvl in zip(self.names, self.chosen, strict=True):
            h = self.hierarchies[c]
            codes.append(h.maps[lvl][h.encode(frame[c])])
            radices.append(len(h.labels[lvl]))
        mat = np.column_stack(codes).astype(np.int32)
        counts = (np.ones(len(frame), dtype=np.int64) if count_column is None
                  else frame[count_column].to_numpy(dtype=np.int64))
        if self.combinations is None:
            _, inverse = np.unique(mat, axis=0, return_inverse=True)
            inverse = inverse.ravel()
            small = np.bincount(inverse, weights=counts)[inverse] < self.k
        else:
            small = small_in_any(mat, counts, radices, self.combinations, self.k)
        out = frame.copy()
        for j, (c, lvl) in enumerate(zip(self.names, self.chosen, strict=True)):
            labels = self.hierarchies[c].labels[lvl][mat[:, j]].astype(object)
            labels[small] = None
            out[c] = labels
        out["suppressed"] = small
        return out


def _as_hierarchy(column: str, h: pd.DataFrame | Hierarchy) -> Hierarchy:
    if isinstance(h, Hierarchy):
        return h
    if isinstance(h, pd.DataFrame):
        return Hierarchy.from_frame(column, h)
    raise ConfigError(f"hierarchy of {column!r} must be a DataFrame, got {type(h).__name__}")


SEARCHES = ("paths", "ola", "exhaustive", "heuristic")
#: the searches that switch to the heuristic beyond the node budget
_AUTOMATIC = ("paths", "ola")


@dataclass
class Solution:
    """What :func:`solve` found (see :class:`OlaResult`)."""

    chosen: Node | None
    optimal: NodeReport | None
    k_minimal: list[NodeReport]
    best_k_minimal: Node | None
    search: OlaSearchResult
    optimum_evaluated: int
    passing_nodes: int
    kind: str = "optimal"
    heuristic: HeuristicResult | None = None
    trace: Trace = field(default_factory=Trace)


def uses_heuristic(search: str, budget: SearchBudget, lattice: Lattice) -> bool:
    """Whether :func:`solve` runs the heuristic search: asked for (``search="heuristic"``), or
    the lattice is larger than ``budget.max_nodes`` with the default searches."""
    return search == "heuristic" or (search in _AUTOMATIC and budget.use_heuristic(lattice.size))


def solve_heuristic(
    evaluator: NodeEvaluator, lattice: Lattice, metric: str, logger: Logger,
    budget: SearchBudget,
) -> Solution:
    """The heuristic search's node (:func:`lightning_search`) as a :class:`Solution`: no
    k-minimal nodes, the chosen node with every metric."""
    metrics = Metrics(evaluator.hierarchies, evaluator.leaf_table, evaluator.k)
    h = lightning_search(evaluator, metrics, lattice, metric, seconds=budget.heuristic_time(),
                         max_checks=budget.heuristic_nodes, logger=logger)
    found = OlaSearchResult(k_minimal=[], evaluated=h.checked, lattice_size=lattice.size,
                            evaluations={c.node: c.passes for c in h.trace},
                            tagged_passing=sum(c.passes for c in h.trace),
                            tagged_failing=sum(not c.passes for c in h.trace), seconds=h.seconds)
    optimal = None
    if h.node is not None:
        t = evaluator.judged(h.node)
        optimal = NodeReport(h.node, t.suppressed(evaluator.k), metrics.all(t))
    trace = Trace()
    for c in h.trace:
        trace.add(c.node, c.suppressed, c.value, c.passes, force=c.node == h.node)
    return Solution(h.node, optimal, [], None, found, 0, found.tagged_passing, "heuristic", h,
                    trace)


def solve(
    evaluator: NodeEvaluator,
    lattice: Lattice,
    metric: str = DEFAULT_METRIC,
    search: str = "paths",
    logger: Logger | None = None,
    all_metrics: bool = False,
    budget: SearchBudget | None = None,
) -> Solution:
    """Find the k-minimal nodes (``search``: "paths" = :func:`path_search`, "ola" = the
    paper's :func:`ola_search`, "exhaustive" = every node evaluated, for checking), then the
    best passing node under ``metric``. Every passing node evaluated gets ``metric`` (all four
    with ``all_metrics``); the chosen node gets all four. ``search="heuristic"``, or a lattice
    larger than ``budget.max_nodes`` with "paths" or "ola": the heuristic search instead
    (:func:`solve_heuristic`)."""
    metric = check_metric(metric)
    if search not in SEARCHES:
        raise ConfigError(f"search must be one of {list(SEARCHES)}, got {search!r}")
    log = logger or get_logger("dbt_deid.ola")
    budget = budget or SearchBudget()
    if uses_heuristic(search, budget, lattice):
        if search != "heuristic":
            log.info(
                f"OLA: the lattice has {lattice.size:,} nodes, more than"
                f" {budget.setting_name('max_nodes')} = {budget.max_nodes:,}: the optimal search"
                " would not fit; running the heuristic search (Lightning) within"
                f" {budget.setting_name('heuristic_seconds')} = {budget.heuristic_seconds}; the"
                " result is marked search = heuristic")
        return solve_heuristic(evaluator, lattice, metric, log, budget)
    budget.check_lattice(lattice.size, lattice.shape, lattice.names)
    progress = Progress(log, budget)
    metrics = Metrics(evaluator.hierarchies, evaluator.leaf_table, evaluator.k)
    reports: dict[Node, NodeReport] = {}
    scored: dict[Node, Scored] = {}
    trace = Trace()

    def is_passing(node: Node) -> bool:
        # score a passing node while its table is at hand: every k-minimal node is evaluated
        # (a node is only tagged passing through a passing specialization); a failing node is
        # scored for the risk-utility picture while the trace has room
        t = evaluator.judged(node)
        suppressed = t.suppressed(evaluator.k)
        ok = suppressed <= evaluator.allowed
        if search == "exhaustive" or ok:
            value = metrics.value(metric, t)
            scored[node] = Scored(suppressed, value, metrics.upset_bound(metric, t))
            if ok:
                reports[node] = NodeReport(
                    node, suppressed, metrics.all(t) if all_metrics else {metric: value})
            trace.add(node, suppressed, value, ok)
        elif not trace.full:
            trace.add(node, suppressed, metrics.value(metric, t), ok)
        else:
            trace.dropped += 1
        return ok

    def record(node: Node, sc: Scored) -> None:
        trace.add(node, sc.suppressed, sc.value, sc.suppressed <= evaluator.allowed)

    floor = evaluator.marginal_floor()
    if search == "paths":
        found = path_search(lattice, is_passing, logger=log, budget=budget, progress=progress,
                            failing_below=floor)
    elif search == "ola":
        found = ola_search(lattice, is_passing, logger=log, budget=budget, progress=progress,
                           failing_below=floor)
    else:
        found = exhaustive_search(lattice, is_passing, budget)
    k_minimal = [reports[node] for node in found.k_minimal]
    passing = int(found.tagged_passing)
    if not k_minimal:
        return Solution(None, None, [], None, found, 0, passing, trace=trace)
    best_kmin = min(k_minimal, key=lambda r: selection_key(r.metrics[metric], r.node)).node
    if search == "exhaustive":
        chosen, _ = exhaustive_optimum(scored, evaluator.allowed)
        extra = 0
    else:
        opt = optimum_search(evaluator, metrics, lattice, metric, found.k_minimal, scored,
                             progress, passing, record=record)
        chosen, extra = opt.node, opt.evaluated
        progress.line("optimum search", opt.visited, passing, opt.evaluated,
                      f"; best {metric} {opt.scored.value:.6g}")
    table = evaluator.judged(chosen)
    optimal = NodeReport(chosen, table.suppressed(evaluator.k), metrics.all(table))
    if chosen not in trace.nodes:  # the released node is always kept (it was evaluated and
        # counted as dropped when the trace was full)
        trace.add(chosen, optimal.suppressed, optimal.metrics[metric], True, force=True)
        trace.dropped = max(0, trace.dropped - 1)
    return Solution(chosen, optimal, k_minimal, best_kmin, found, extra, passing, trace=trace)


def run_ola(
    patterns: pd.DataFrame,
    hierarchies: Mapping[str, pd.DataFrame | Hierarchy],
    k: int,
    max_suppression: float,
    metric: str = DEFAULT_METRIC,
    max_levels: Mapping[str, int] | None = None,
    *,
    min_levels: Mapping[str, int] | None = None,
    count_column: str | None = "n",
    search: str = "paths",
    all_metrics: bool = False,
    logger: Logger | None = None,
    budget: SearchBudget | None = None,
    combinations: Sequence[Sequence[str]] | None = None,
) -> OlaResult:
    """Run OLA on a pattern table.

    ``patterns``: one row per distinct QI tuple with its record count in ``count_column``
    (``None``: one row per record). ``hierarchies``: QI column -> hierarchy as a DataFrame
    whose columns are the levels (``original, level1, ...``) or a :class:`Hierarchy`; these
    columns are the QIs, in this order. ``max_levels``: per-QI maximum acceptable
    generalization (El Emam et al. 2009 (CJHP) Table 2; default the hierarchy height). ``metric``:
    one of ``entropy`` (default), ``precision``, ``discernibility``, ``loss``; ``all_metrics``
    computes all four for every k-minimal node (else only for the chosen one). ``budget``:
    the largest lattice searched and the time allowed (:class:`SearchBudget`); beyond the
    node budget the heuristic search runs within ``budget.heuristic_seconds`` (``search``
    "heuristic" forces it; "exhaustive" refuses such a lattice). ``combinations``: the
    protected QI combinations; a node passes when the records in a class smaller than k on any
    of them are at most MaxSup (:mod:`dbt_deid.ola.combinations`; default: all QIs at once,
    OLA's own).
    """
    started = time.perf_counter()
    metric = check_metric(metric)
    if not hierarchies:
        raise ConfigError("give at least one quasi-identifier hierarchy")
    hs = {str(c): _as_hierarchy(str(c), h) for c, h in hierarchies.items()}
    lattice = Lattice.from_heights(
        {c: h.height for c, h in hs.items()}, dict(max_levels or {}), dict(min_levels or {})
    )
    budget = budget or SearchBudget()
    if not uses_heuristic(search, budget, lattice):
        budget.check_lattice(lattice.size, lattice.shape, lattice.names)
    evaluator = NodeEvaluator.from_frame(patterns, hs, k, max_suppression, count_column)
    evaluator.combinations = combination_indices(lattice.names, combinations)
    sol = solve(evaluator, lattice, metric, search, logger, all_metrics, budget)
    return OlaResult(
        names=lattice.names, k=evaluator.k, max_suppression=evaluator.max_suppression,
        metric=metric, n_records=evaluator.n_records,
        heights=tuple(h.height for h in hs.values()), lattice=lattice, chosen=sol.chosen,
        k_minimal=sol.k_minimal, evaluated=sol.search.evaluated + sol.optimum_evaluated,
        lattice_size=sol.search.lattice_size, seconds=time.perf_counter() - started,
        search=sol.search, hierarchies=hs, optimal=sol.optimal,
        best_k_minimal=sol.best_k_minimal, optimum_evaluated=sol.optimum_evaluated,
        passing_nodes=sol.passing_nodes, search_kind=sol.kind, heuristic=sol.heuristic,
        combinations=evaluator.combinations, trace=sol.trace.items(),
        trace_dropped=sol.trace.dropped,
    )


__all__ = ["TRACE_LIMIT", "EvaluatedNode", "NodeReport", "OlaResult", "Solution", "Trace",
           "aggregate", "run_ola", "solve", "solve_heuristic", "uses_heuristic"]
