"""OLA end to end on a pattern table: the entry point for dbt Python models and the CLI.

Steps (El Emam et al. 2009; seed 003 "Apply Generalization and Suppression"): encode the
pattern table through the hierarchies, build the lattice capped by the maximum acceptable
generalization per QI (seed 003 Table 2), find the k-minimal nodes with :func:`ola_search`, and
choose the one with the least information loss (ties: lower height, then lexicographic node).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from dbt_deid.errors import ConfigError
from dbt_deid.ola.evaluate import NodeEvaluator, aggregate
from dbt_deid.ola.hierarchies import Hierarchy
from dbt_deid.ola.lattice import Lattice, Node
from dbt_deid.ola.metrics import DEFAULT_METRIC, METRICS, Metrics, check_metric, selection_key
from dbt_deid.ola.search import OlaSearchResult, exhaustive_search, ola_search
from dbt_deid.progress import Logger


@dataclass
class NodeReport:
    """One k-minimal node: its levels, the records it would suppress and every metric."""

    node: Node
    suppressed: int
    metrics: dict[str, float]


@dataclass
class OlaResult:
    """The outcome of :func:`run_ola`. ``chosen`` is None when no node passes (even the top
    node leaves more than MaxSup of the records in classes smaller than k)."""

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

    @property
    def chosen_report(self) -> NodeReport | None:
        return next((r for r in self.k_minimal if r.node == self.chosen), None)

    @property
    def metric_value(self) -> float | None:
        r = self.chosen_report
        return None if r is None else r.metrics[self.metric]

    @property
    def suppressed(self) -> int | None:
        r = self.chosen_report
        return None if r is None else r.suppressed

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

    def node_report_frame(self) -> pd.DataFrame:
        """One row per k-minimal node: a level column per QI, height, suppressed records and
        share, every metric, and whether it is the chosen node."""
        rows = []
        for r in self.k_minimal:
            row: dict[str, Any] = dict(zip(self.names, r.node, strict=True))
            row["height"] = sum(r.node)
            row["suppressed"] = r.suppressed
            row["suppressed_share"] = r.suppressed / self.n_records
            row.update({m: r.metrics.get(m) for m in METRICS})
            row["chosen"] = r.node == self.chosen
            rows.append(row)
        cols = [*self.names, "height", "suppressed", "suppressed_share", *METRICS, "chosen"]
        return pd.DataFrame(rows, columns=cols)

    def to_dict(self) -> dict[str, Any]:
        return {
            "k": self.k,
            "max_suppression": self.max_suppression,
            "metric": self.metric,
            "records": self.n_records,
            "chosen": self.chosen_levels(),
            "metric_value": self.metric_value,
            "suppressed_records": self.suppressed,
            "nodes_evaluated": self.evaluated,
            "lattice_size": self.lattice_size,
            "seconds": round(self.seconds, 4),
            "k_minimal": [
                {"levels": dict(zip(self.names, r.node, strict=True)),
                 "suppressed_records": r.suppressed, "metrics": r.metrics}
                for r in self.k_minimal
            ],
        }

    def apply(self, frame: pd.DataFrame, count_column: str | None = "n") -> pd.DataFrame:
        """Generalize a pattern (or record) table to the chosen node and suppress (set to null)
        every QI of the records in classes smaller than k; adds a boolean ``suppressed``
        column. Record-level suppression as OLA counts it; cell-level suppression (seed 003)
        is a separate step."""
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
        _, inverse = np.unique(mat, axis=0, return_inverse=True)
        inverse = inverse.ravel()
        sizes = np.bincount(inverse, weights=counts)[inverse]
        small = sizes < self.k
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


def solve(
    evaluator: NodeEvaluator,
    lattice: Lattice,
    metric: str = DEFAULT_METRIC,
    search: str = "ola",
    logger: Logger | None = None,
    all_metrics: bool = False,
) -> tuple[Node | None, list[NodeReport], OlaSearchResult]:
    """Search the lattice and rank the k-minimal nodes by ``metric`` (``search`` is "ola" or
    "exhaustive", the latter evaluating every node, for checking). Every k-minimal node gets
    the chosen metric; the chosen node (every node with ``all_metrics``) gets all four."""
    metric = check_metric(metric)
    metrics = Metrics(evaluator.hierarchies, evaluator.leaf_table, evaluator.k)
    scored: dict[Node, NodeReport] = {}

    def is_passing(node: Node) -> bool:
        # score a passing node while its table is at hand: every k-minimal node is evaluated
        # (a node is only tagged passing through a passing specialization)
        t = evaluator.table(node)
        suppressed = t.suppressed(evaluator.k)
        ok = suppressed <= evaluator.allowed
        if ok:
            values = metrics.all(t) if all_metrics else {metric: metrics.value(metric, t)}
            scored[node] = NodeReport(node, suppressed, values)
        return ok

    if search == "ola":
        found = ola_search(lattice, is_passing, logger=logger)
    elif search == "exhaustive":
        found = exhaustive_search(lattice, is_passing)
    else:
        raise ConfigError(f"search must be 'ola' or 'exhaustive', got {search!r}")
    reports = [scored[node] for node in found.k_minimal]
    chosen = None
    if reports:
        best = min(reports, key=lambda r: selection_key(r.metrics[metric], r.node))
        if not all_metrics:
            best.metrics = metrics.all(evaluator.table(best.node))
        chosen = best.node
    return chosen, reports, found


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
    search: str = "ola",
    all_metrics: bool = False,
    logger: Logger | None = None,
) -> OlaResult:
    """Run OLA on a pattern table.

    ``patterns``: one row per distinct QI tuple with its record count in ``count_column``
    (``None``: one row per record). ``hierarchies``: QI column -> hierarchy as a DataFrame
    whose columns are the levels (``original, level1, ...``) or a :class:`Hierarchy`; these
    columns are the QIs, in this order. ``max_levels``: per-QI maximum acceptable
    generalization (seed 003 Table 2; default the hierarchy height). ``metric``: one of
    ``entropy`` (default), ``precision``, ``discernibility``, ``loss``; ``all_metrics``
    computes all four for every k-minimal node (else only for the chosen one).
    """
    started = time.perf_counter()
    metric = check_metric(metric)
    if not hierarchies:
        raise ConfigError("give at least one quasi-identifier hierarchy")
    hs = {str(c): _as_hierarchy(str(c), h) for c, h in hierarchies.items()}
    lattice = Lattice.from_heights(
        {c: h.height for c, h in hs.items()}, dict(max_levels or {}), dict(min_levels or {})
    )
    evaluator = NodeEvaluator.from_frame(patterns, hs, k, max_suppression, count_column)
    chosen, reports, found = solve(evaluator, lattice, metric, search, logger, all_metrics)
    return OlaResult(
        names=lattice.names, k=evaluator.k, max_suppression=evaluator.max_suppression,
        metric=metric, n_records=evaluator.n_records,
        heights=tuple(h.height for h in hs.values()), lattice=lattice, chosen=chosen,
        k_minimal=reports, evaluated=found.evaluated, lattice_size=found.lattice_size,
        seconds=time.perf_counter() - started, search=found, hierarchies=hs,
    )


__all__ = ["NodeReport", "OlaResult", "aggregate", "run_ola", "solve"]
