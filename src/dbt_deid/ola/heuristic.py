"""A heuristic search for lattices too large for the optimal search: Lightning (Prasser,
Bild, Eicher, Spengler, Kuhn and Kohlbacher, "Lightning: Utility-Driven Anonymization of
High-Dimensional Data", Transactions on Data Privacy 9(2), 2016, section 4; ARX's
``LIGHTNINGAlgorithm``, its default heuristic), on OLA's exact node test.

The optimal searches (:mod:`dbt_deid.ola.search`, :mod:`dbt_deid.ola.optimum`) keep a status
byte per node, so they stop at ``max_nodes`` (ARX's example2 census with all 30 attributes is a
lattice of 2.4 x 10^14 nodes). Lightning keeps only the nodes it has met. Every node it meets
is *checked* with the same evaluator as OLA (El Emam et al. 2012 "Base Algorithm": records in
classes smaller than k, passing when at most MaxSup; :class:`NodeEvaluator`) and scored with
the same metric (:class:`Metrics`, records in small classes counted as suppressed, also at
failing nodes), so the node it returns passes under the same MaxSup and its score is comparable
with the optimum's.

The search (Prasser et al. 2016, section 4.2, "best-first search combined with a greedy
depth-first search"): a priority queue of checked nodes ordered by information loss starts
with the lowest node; a node taken from the queue is *expanded* (every direct generalization not
yet expanded is checked and queued); every ``stepping``-th expansion is instead a greedy *dive*:
expand, move to the successor with the least information loss, expand it, and so on until no
successor is left. ``stepping`` is the lattice's height (ARX: the level of the top node). The
best passing node checked so far is kept; a node whose lower bound of the metric over all its
generalizations (:meth:`Metrics.upset_bound`, ARX's "lower bound" of a transformation) exceeds
the best value is pruned with everything above it. When the queue empties, every node was
checked or pruned: the node is the optimum (``proved_optimal``).

Changes to ARX's implementation, none of which changes what a node's check or score is:

* The search starts from the lowest node that can pass instead of the bottom: per QI, the
  level below which the records in that QI's own value groups smaller than k already exceed
  MaxSup (:meth:`NodeEvaluator.marginal_floor`; the same nodes the optimal searches tag
  failing without evaluating them). Every passing node generalizes it.
* The top node is checked first: when it fails no node passes (the criterion is monotone) and
  the search ends at once, as the optimal search does; when it passes it is the first
  incumbent, so pruning works from the start and a node is always returned.
* Before the bottom-up phase, a greedy top-down descent from the top among passing nodes
  (move to the passing direct specialization with the least loss while it improves; then try
  moving one level down on one QI and one up on another, first improvement in QI order, and
  descend again): high nodes have few classes, so these checks are cheap, and on wide lattices
  (30 QIs) it gives a good incumbent within seconds.
* The first expansion is a dive (ARX dives at the ``stepping``-th one), so a passing node near
  the border between failing and passing nodes is found within seconds on wide lattices; a
  dive stops at a successor that the lower bound prunes.
* Ties (equal loss) are broken by :func:`selection_key` (value to 12 significant digits, lower
  height, lexicographic node), successors are visited in QI order: the search is deterministic
  (nothing is random, no seed is needed). What it returns depends on how far it got: a time
  budget (``seconds``) stops it at a machine-dependent point; a node budget (``max_checks``,
  ARX's "step limit") stops it at the same node on every machine.
* On stopping, a lower bound of the optimum's value is reported: the least bound among the
  nodes still queued (and the best value). Every node not checked generalizes a queued node or
  a pruned one (induction over any chain from the starting node), so no node beats that bound;
  ``gap_bound`` = best / bound - 1 is how far above the optimum the node can at most be.
  Stopped before the bottom-up phase, the bound is the starting node's separable bound
  (:meth:`Metrics.separable`; none for discernibility).
"""

from __future__ import annotations

import heapq
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from dbt_deid.ola.budget import DEFAULT_HEURISTIC_SECONDS
from dbt_deid.ola.evaluate import NodeEvaluator
from dbt_deid.ola.lattice import Lattice, Node
from dbt_deid.ola.metrics import Metrics, selection_key
from dbt_deid.ola.optimum import Scored
from dbt_deid.progress import Logger, get_logger


def _margin(value: float) -> float:
    return 1e-9 * max(1.0, abs(value))


@dataclass(frozen=True)
class Checked:
    """One node checked by the heuristic: records in classes smaller than k, metric value,
    lower bound of the metric over its generalizations, and whether it passes MaxSup."""

    node: Node
    suppressed: int
    value: float
    bound: float
    passes: bool


@dataclass
class HeuristicResult:
    """What :func:`lightning_search` found.

    ``node`` / ``scored``: the best passing node checked (None when the top node fails: no node
    passes). ``checked``: nodes checked (tables built and scored), ``expanded``: nodes whose
    successors were all checked. ``proved_optimal``: the queue emptied, so ``node`` is the best
    passing node of the lattice. ``lower_bound``: no passing node has a smaller metric value
    (the value itself when proved optimal). ``stopped``: "exhausted" (queue empty), "time"
    (the ``seconds`` budget), "checks" (the ``max_checks`` budget) or "no passing node".
    ``trace``: every checked node in check order (for the risk-utility picture).
    """

    node: Node | None
    scored: Scored | None
    checked: int
    expanded: int
    seconds: float
    proved_optimal: bool
    lower_bound: float | None
    stopped: str
    start: Node
    trace: list[Checked] = field(default_factory=list, repr=False)

    @property
    def gap_bound(self) -> float | None:
        """value / lower bound - 1: the node's value is at most this share above the optimum's
        (0 when proved optimal; None without a node or when the bound is not positive)."""
        if self.scored is None or self.lower_bound is None:
            return None
        if self.proved_optimal:
            return 0.0
        if self.lower_bound <= 0:
            return None
        return max(0.0, self.scored.value / self.lower_bound - 1.0)


class _Stop(Exception):
    """The budget ran out."""


def lightning_search(
    evaluator: NodeEvaluator,
    metrics: Metrics,
    lattice: Lattice,
    metric: str,
    *,
    seconds: float | None = DEFAULT_HEURISTIC_SECONDS,
    max_checks: int | None = None,
    logger: Logger | None = None,
    every: float = 10.0,
    clock: Callable[[], float] = time.perf_counter,
) -> HeuristicResult:
    """Lightning (Prasser et al. 2016, section 4.2; see the module docstring) on the lattice,
    with OLA's node test and ``metric``. Stops when the queue empties (the optimum is then
    proved), after ``seconds`` (None: no time limit) or after ``max_checks`` node checks (None:
    no limit), and returns the best passing node checked. Logs a progress line every ``every``
    seconds: nodes checked and expanded, queue length, best value, elapsed and budget left."""
    log = logger or get_logger("dbt_deid.ola")
    started = clock()
    deadline = None if seconds is None else started + float(seconds)
    k, allowed = evaluator.k, evaluator.allowed
    mins, maxs = lattice.min_levels, lattice.max_levels
    trace: list[Checked] = []
    checked: dict[Node, Checked] = {}
    expanded: set[Node] = set()
    pruned: set[Node] = set()
    queued: set[Node] = set()
    heap: list[tuple[tuple[float, int, Node], Node]] = []
    best: list[Checked] = []  # the incumbent (0 or 1 element)
    state = {"next_log": started + every, "expansions": 0, "bottom_up": 0}

    def budget_left() -> str:
        if deadline is None:
            return "no time limit"
        return f"{max(0.0, deadline - clock()):.1f} s of {seconds:g} s left"

    def line(phase: str) -> None:
        b = best[0] if best else None
        log.info(
            f"OLA heuristic search (Lightning) {phase}: {len(checked):,} nodes checked,"
            f" {len(expanded):,} expanded, {len(queued):,} queued"
            f"{'' if max_checks is None else f' (node budget {max_checks:,})'};"
            f" best {metric} {'-' if b is None else f'{b.value:.6g}'}"
            f"{'' if b is None else f' ({b.suppressed:,} records in small classes)'};"
            f" {clock() - started:.1f} s elapsed, {budget_left()}"
        )

    def check(node: Node) -> Checked:
        hit = checked.get(node)
        if hit is not None:
            return hit
        now = clock()
        if (deadline is not None and now > deadline) or (
                max_checks is not None and len(checked) >= max_checks):
            raise _Stop
        if now >= state["next_log"]:
            state["next_log"] = now + every
            line("running")
        t = evaluator.judged(node)
        sup = t.suppressed(k)
        c = Checked(node, sup, metrics.value(metric, t), metrics.upset_bound(metric, t),
                    sup <= allowed)
        checked[node] = c
        trace.append(c)
        if c.passes and (not best or selection_key(c.value, node)
                         < selection_key(best[0].value, best[0].node)):
            best[:] = [c]
        return c

    def prunable(c: Checked) -> bool:
        b = best[0] if best else None
        return b is not None and c.node != b.node and c.bound > b.value + _margin(b.value)

    def push(c: Checked) -> None:
        if c.node not in queued:
            queued.add(c.node)
            heapq.heappush(heap, (selection_key(c.value, c.node), c.node))

    def expand(node: Node) -> Checked | None:
        """Check and queue every direct generalization not expanded or pruned; mark the node
        expanded; return the successor with the least loss (None when there is none)."""
        out: Checked | None = None
        for j in range(len(node)):
            if node[j] >= maxs[j]:
                continue
            succ = node[:j] + (node[j] + 1,) + node[j + 1:]
            if succ in expanded or succ in pruned:
                continue
            c = check(succ)
            push(c)
            if out is None or selection_key(c.value, succ) < selection_key(out.value, out.node):
                out = c
        expanded.add(node)
        state["expansions"] += 1
        return out

    def descend(node: Checked) -> None:
        """Phase 1: greedy top-down descent among passing nodes (the direction of ARX's
        top-down Lightning): move to the passing direct specialization with the least loss
        while it improves on the current node."""
        cur = node
        while True:
            nxt = None
            for j in range(len(cur.node)):
                if cur.node[j] <= start[j]:
                    continue  # below the start every node fails
                c = check(cur.node[:j] + (cur.node[j] - 1,) + cur.node[j + 1:])
                if c.passes and (nxt is None or selection_key(c.value, c.node)
                                 < selection_key(nxt.value, nxt.node)):
                    nxt = c
            if nxt is None or selection_key(nxt.value, nxt.node) >= selection_key(
                    cur.value, cur.node):
                nxt = swap(cur)
                if nxt is None:
                    return
            cur = nxt

    def swap(cur: Checked) -> Checked | None:
        """The first passing node with less loss that lowers one QI by a level and raises
        another by one (QIs in order), or None: a local search step out of the descent's
        local optimum."""
        key = selection_key(cur.value, cur.node)
        n = cur.node
        for i in range(len(n)):
            if n[i] <= start[i]:
                continue
            for j in range(len(n)):
                if j == i or n[j] >= maxs[j]:
                    continue
                moved = list(n)
                moved[i] -= 1
                moved[j] += 1
                c = check(tuple(moved))
                if c.passes and selection_key(c.value, c.node) < key:
                    return c
        return None

    floor = evaluator.marginal_floor()
    start = tuple(max(lo, min(f, hi)) for lo, f, hi in zip(mins, floor, maxs, strict=True))
    stepping = max(1, lattice.max_height)
    log.info(
        f"OLA heuristic search (Lightning, Prasser et al. 2016): lattice of {lattice.size:,}"
        f" nodes, height {lattice.max_height}; starting at {start} (height"
        f" {lattice.height(start)}), dive every {stepping} expansions; {budget_left()}"
        f"{'' if max_checks is None else f', node budget {max_checks:,}'}"
    )
    stopped = "exhausted"
    current: Checked | None = None  # a node whose expansion a stop interrupted
    try:
        top = check(tuple(maxs))
        if not top.passes:
            stopped = "no passing node"
        else:
            descend(top)
            line("top-down descent done")
            push(check(start))
            state["bottom_up"] = 1
            step = 0
            while heap:
                _, node = heapq.heappop(heap)
                queued.discard(node)
                c = checked[node]
                if node in expanded or node in pruned:
                    continue
                if prunable(c):
                    pruned.add(node)
                    continue
                dive = step % stepping == 0
                step += 1
                current = c
                nxt = expand(node)
                while dive and nxt is not None:
                    if nxt.node in expanded or prunable(nxt):
                        break
                    current = nxt
                    queued.discard(nxt.node)  # lazily removed from the heap
                    nxt = expand(nxt.node)
                current = None
    except _Stop:
        stopped = "time" if max_checks is None or len(checked) < max_checks else "checks"
    b = best[0] if best else None
    proved = stopped == "exhausted" and b is not None
    lower: float | None = None
    if b is not None and not state.get("bottom_up"):
        # stopped before the bottom-up phase: only the levels bound the unexplored nodes
        sep = metrics.separable(metric)
        if sep is not None:
            lower = min(b.value, float(sum(a[v] for a, v in zip(sep, start, strict=True))))
    elif b is not None:
        open_bounds = [checked[n].bound for n in queued
                       if n not in expanded and n not in pruned]
        if current is not None and current.node not in expanded:
            open_bounds.append(current.bound)
        lower = b.value if proved else min([b.value, *open_bounds])
    if lower is not None and not math.isfinite(lower):  # pragma: no cover - finite bounds
        lower = None
    result = HeuristicResult(
        node=None if b is None else b.node,
        scored=None if b is None else Scored(b.suppressed, b.value, b.bound),
        checked=len(checked), expanded=len(expanded), seconds=clock() - started,
        proved_optimal=proved, lower_bound=lower, stopped=stopped, start=start, trace=trace)
    gap = result.gap_bound
    line(f"done ({stopped}{'; the optimum' if proved else ''}"
         f"{'' if gap is None or proved else f'; at most {gap:.1%} above the optimum'})")
    return result


__all__ = ["Checked", "HeuristicResult", "lightning_search"]
