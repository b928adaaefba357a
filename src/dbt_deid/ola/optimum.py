"""The best passing node of the lattice under a metric (issue 18, item 1).

OLA (El Emam et al. 2009; El Emam et al. 2012 "Base Algorithm") releases the k-minimal node with the
least information loss. Without suppression that node is the best passing node of the whole lattice,
because every metric grows with generalization and every passing node generalizes a k-minimal
node. With suppression (MaxSup > 0) the metrics are not monotone: generalizing a k-minimal node
one more level can move records out of classes smaller than k, and a record kept at a coarser
level usually costs less than a suppressed record. The best passing node can then lie strictly
above every k-minimal node (on Adult at MaxSup 100%, OLA's k-minimal choice is the bottom node,
which suppresses 78% of the records).

:func:`optimum_search` finds the best passing node exactly by best-first branch and bound over
the passing region (the generalizations of the k-minimal nodes; every generalization of a passing
node passes, El Emam et al. 2012's monotone criterion). Each queued node carries a lower bound of
the metric over all its generalizations (:meth:`Metrics.separable` / :meth:`Metrics.upset_bound`);
nodes are taken in increasing bound, and the search stops when the smallest bound left exceeds the
best value found: every passing node not evaluated lies above a queued node, so its value is at
least that node's bound. Ties are broken as everywhere in OLA (:func:`selection_key`: value to 12
significant digits, then lower height, then the lexicographically smaller node); the pruning test
keeps a margin of 1e-9 of the value, so rounding never prunes a tie.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from dbt_deid.ola.budget import Progress
from dbt_deid.ola.evaluate import NodeEvaluator
from dbt_deid.ola.lattice import Lattice, Node
from dbt_deid.ola.metrics import Metrics, selection_key


@dataclass(frozen=True)
class Scored:
    """A passing node's suppressed records, metric value and bound over its generalizations."""

    suppressed: int
    value: float
    bound: float


@dataclass
class OptimumResult:
    """``node``: the best passing node (None when none passes); ``evaluated``: tables built by
    this phase (nodes not already scored by the k-minimal search); ``visited``: nodes whose
    value was compared; ``seconds``: wall time of the phase."""

    node: Node | None
    scored: Scored | None
    evaluated: int
    visited: int
    seconds: float


def _margin(value: float) -> float:
    return 1e-9 * max(1.0, abs(value))


def score(evaluator: NodeEvaluator, metrics: Metrics, metric: str, node: Node) -> Scored:
    t = evaluator.judged(node)
    return Scored(t.suppressed(evaluator.k), metrics.value(metric, t),
                  metrics.upset_bound(metric, t))


def optimum_search(
    evaluator: NodeEvaluator,
    metrics: Metrics,
    lattice: Lattice,
    metric: str,
    seeds: Sequence[Node],
    known: Mapping[Node, Scored],
    progress: Progress,
    planned: int,
    record: Callable[[Node, Scored], None] | None = None,
) -> OptimumResult:
    """Best-first branch and bound from the k-minimal nodes ``seeds`` (see the module
    docstring). ``known``: nodes already scored (the k-minimal search scores every passing node
    it evaluates), reused without a table. ``planned``: the number of passing nodes, for the
    progress lines. ``record``: called with every node this phase scores (the risk-utility
    picture's trace)."""
    started = time.perf_counter()
    sep = metrics.separable(metric)
    sep_arrays = None if sep is None else [np.asarray(a, dtype=np.float64) for a in sep]
    strides = lattice.strides.tolist()
    mins = lattice.min_levels

    def sep_bound(node: Node) -> float:
        if sep_arrays is None:
            return -np.inf
        return float(sum(a[v] for a, v in zip(sep_arrays, node, strict=True)))

    def flat(node: Node) -> int:
        return sum((v - lo) * s for v, lo, s in zip(node, mins, strides, strict=True))

    seen = np.zeros(lattice.size, dtype=bool)
    heap: list[tuple[float, int, Node]] = []
    for node in seeds:
        node = tuple(node)
        f = flat(node)
        if seen[f]:
            continue
        seen[f] = True
        hit = known.get(node)
        bound = hit.bound if hit is not None else sep_bound(node)
        heapq.heappush(heap, (bound, sum(node), node))
    best: Scored | None = None
    best_node: Node | None = None
    best_key = None
    evaluated = visited = 0

    def count() -> int:
        return visited

    while heap:
        bound, _, node = heapq.heappop(heap)
        if best is not None and bound > best.value + _margin(best.value):
            break  # every node left, and everything above it, is worse
        hit = known.get(node)
        if hit is None:
            progress.tick("optimum search", count, planned, evaluated,
                          "" if best is None else f", best {metric} {best.value:.6g}")
            hit = score(evaluator, metrics, metric, node)
            evaluated += 1
            if record is not None:
                record(node, hit)
        visited += 1
        if hit.suppressed > evaluator.allowed:  # pragma: no cover - monotone criterion
            raise AssertionError(f"node {node} above a passing node fails: not monotone")
        key = selection_key(hit.value, node)
        if best_key is None or key < best_key:
            best, best_node, best_key = hit, node, key
        if hit.bound > best.value + _margin(best.value):
            continue  # nothing above this node can beat the best
        for succ in lattice.successors(node):
            f = flat(succ)
            if seen[f]:
                continue
            seen[f] = True
            heapq.heappush(heap, (max(hit.bound, sep_bound(succ)), sum(succ), succ))
    return OptimumResult(best_node, best, evaluated, visited, time.perf_counter() - started)


def exhaustive_optimum(
    scores: Mapping[Node, Scored], allowed: int
) -> tuple[Node | None, Scored | None]:
    """Reference: the best passing node among every scored node (for tests and
    ``search="exhaustive"``)."""
    best_node, best, best_key = None, None, None
    for node, sc in scores.items():
        if sc.suppressed > allowed:
            continue
        key = selection_key(sc.value, node)
        if best_key is None or key < best_key:
            best_node, best, best_key = node, sc, key
    return best_node, best
