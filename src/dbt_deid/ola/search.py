"""OLA's search for the k-minimal nodes of a generalization lattice (El Emam et al., JAMIA 2009).

The search only needs a yes/no evaluation of a node (``is_passing``), so the same code serves OLA
(k-anonymity with at most MaxSup suppressed records, :mod:`dbt_deid.ola.evaluate`) and LOLA
(bootstrap evaluation of longitudinal data, seed 001 "Base Algorithm"). It assumes the criterion
is *monotone*: every generalization of a passing node passes (so every specialization of a
failing node fails). This holds for "records in classes smaller than k <= MaxSup", because
generalizing only merges classes.

Algorithm (the paper's ``Kmin(Bnode, Tnode)``): for a sub-lattice with height H > 1, visit every
node N at height floor(H/2) inside it; if N passes (tagged or evaluated), recurse into the
sub-lattice (Bnode, N), else into (N, Tnode). A two-node sub-lattice (H = 1) adds Bnode to the
result when it passes, else Tnode. Predictive tagging: when a node passes, all its
generalizations are tagged passing; when it fails, all its specializations are tagged failing, so
they are never evaluated. The result set is reduced to its minimal elements, the k-minimal nodes
(passing nodes none of whose specializations pass; the paper's CleanUp).

Bookkeeping added to the paper, which changes neither the evaluated nodes' outcomes nor the
result: each node is evaluated at most once; a sub-lattice already searched is not searched again
(what it adds does not depend on the tags); a sub-lattice whose nodes are all tagged is not
entered (it would evaluate nothing), and the k-minimal nodes it holds are recovered at the end as
the tagged-passing nodes with no tagged-passing direct specialization (every such node passes,
and every k-minimal node of a fully tagged sub-lattice is one). Tags live in a dense int8 array
over the lattice (lists of dominating nodes above ``_DENSE_LIMIT`` nodes).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from dbt_deid.ola.lattice import Lattice, Node
from dbt_deid.progress import Logger, get_logger

PASS = 1
FAIL = -1
UNKNOWN = 0
_DENSE_LIMIT = 1 << 26  # nodes; above this the tags are kept as lists of dominating nodes


@dataclass
class OlaSearchResult:
    """What the search found.

    ``k_minimal``: the k-minimal nodes, ordered by height then lexicographically (empty when
    even the top node fails). ``evaluated``: how many times ``is_passing`` was called (each
    node at most once). ``lattice_size``: number of nodes in the lattice. ``evaluations``: every
    evaluated node with its outcome, in evaluation order. ``tagged_passing`` /
    ``tagged_failing``: number of nodes whose status is known (evaluated or predicted) at the end.
    """

    k_minimal: list[Node]
    evaluated: int
    lattice_size: int
    evaluations: dict[Node, bool] = field(default_factory=dict)
    tagged_passing: int = 0
    tagged_failing: int = 0


class _Tags:
    """Predictive tags: a dense int8 array over the lattice, or dominance lists for huge
    lattices."""

    def __init__(self, lattice: Lattice) -> None:
        self.lattice = lattice
        self.offset = None if not any(lattice.min_levels) else lattice.min_levels
        self.dense = lattice.size <= _DENSE_LIMIT
        if self.dense:
            self.status = np.zeros(lattice.shape, dtype=np.int8)
        self.passing: list[Node] = []
        self.failing: list[Node] = []

    def _index(self, node: Node) -> Node:
        if self.offset is None:
            return node
        return tuple(v - lo for v, lo in zip(node, self.offset, strict=True))

    def get(self, node: Node) -> int:
        if self.dense:
            return int(self.status[self._index(node)])
        if any(Lattice.is_generalization(node, p) for p in self.passing):
            return PASS
        if any(Lattice.is_generalization(f, node) for f in self.failing):
            return FAIL
        return UNKNOWN

    def tag(self, node: Node, passing: bool) -> None:
        idx = self._index(node)
        if passing:
            if self.dense:
                self.status[tuple(slice(i, None) for i in idx)] = PASS
            self.passing.append(node)
        else:
            if self.dense:
                self.status[tuple(slice(0, i + 1) for i in idx)] = FAIL
            self.failing.append(node)

    def settled(self, low: Node, high: Node) -> bool:
        """True when every node of the sub-lattice [low, high] is tagged (dense tags only)."""
        if not self.dense:
            return False
        # UNKNOWN is 0, so "all tagged" is "no zero"
        lo, hi = self._index(low), self._index(high)
        box = self.status[tuple(map(slice, lo, [v + 1 for v in hi]))]
        return np.count_nonzero(box) == box.size

    def minimal_passing(self) -> list[Node]:
        """Nodes tagged passing none of whose direct specializations is tagged passing (a
        superset of the k-minimal nodes among the tagged ones; dense tags only)."""
        if not self.dense:
            return []
        ok = self.status == PASS
        minimal = ok.copy()
        for axis in range(ok.ndim):
            src = [slice(None)] * ok.ndim
            dst = [slice(None)] * ok.ndim
            src[axis] = slice(0, -1)
            dst[axis] = slice(1, None)
            minimal[tuple(dst)] &= ~ok[tuple(src)]
        base = np.asarray(self.lattice.min_levels)
        return [tuple(int(v) for v in base + idx) for idx in np.argwhere(minimal)]

    def counts(self) -> tuple[int, int]:
        if self.dense:
            return int((self.status == PASS).sum()), int((self.status == FAIL).sum())
        return len(self.passing), len(self.failing)


def _minimal(nodes: set[Node]) -> list[Node]:
    """The minimal elements of ``nodes`` (those with no other element below them), by height
    then lexicographically."""
    ordered = sorted(nodes, key=lambda n: (sum(n), n))
    if not ordered:
        return []
    mat = np.array(ordered, dtype=np.int64)
    keep = np.zeros(len(ordered), dtype=bool)
    for i in range(len(ordered)):
        kept = mat[:i][keep[:i]]
        keep[i] = not (kept <= mat[i]).all(axis=1).any()
    return [n for n, k in zip(ordered, keep, strict=True) if k]


def ola_search(
    lattice: Lattice,
    is_passing: Callable[[Node], bool],
    *,
    logger: Logger | None = None,
    log_every: int = 500,
) -> OlaSearchResult:
    """OLA's binary search with predictive tagging (El Emam et al. 2009, ``Kmin``).

    ``is_passing(node)`` must be monotone (see the module docstring); it is called at most once
    per node. Returns the k-minimal nodes and the number of evaluations. Progress is logged with
    counts only.
    """
    log = logger or get_logger("dbt_deid.ola")
    tags = _Tags(lattice)
    evaluations: dict[Node, bool] = {}
    found: set[Node] = set()
    searched: set[tuple[Node, Node]] = set()

    def passes(node: Node) -> bool:
        status = tags.get(node)
        if status != UNKNOWN:
            return status == PASS
        ok = bool(is_passing(node))
        evaluations[node] = ok
        tags.tag(node, ok)
        if len(evaluations) % log_every == 0:
            log.info(f"OLA: {len(evaluations)} nodes evaluated of {lattice.size}")
        return ok

    def add(node: Node) -> None:
        # the paper's CleanUp (dropping generalizations of a k-minimal node) is done once at
        # the end by keeping the minimal elements of `found`
        found.add(node)

    def kmin(low: Node, high: Node) -> None:
        if (low, high) in searched:
            return
        searched.add((low, high))
        if tags.settled(low, high):
            # every node of the sub-lattice is tagged, so the recursion would evaluate nothing;
            # the k-minimal nodes it would add are passing nodes without a passing
            # specialization, collected from the tags at the end
            return
        h = lattice.height(high) - lattice.height(low)
        if h > 1:
            mid = lattice.height(low) + h // 2
            for i, node in enumerate(lattice.nodes_between(low, high, mid)):
                if passes(node):
                    kmin(low, node)
                else:
                    kmin(node, high)
                if i % 8 == 7 and tags.settled(low, high):
                    break  # the remaining sub-lattices are all tagged too
        elif h == 1:
            add(low if passes(low) else high)
        elif passes(low):  # a one-node lattice
            add(low)

    top = lattice.top
    if passes(top):
        kmin(lattice.bottom, top)
    # found + the tagged passing nodes without a tagged passing specialization: every node of
    # it passes and every k-minimal node is in it, so its minimal elements are the k-minimal
    # nodes (the paper's CleanUp)
    if found or evaluations.get(top):
        found.update(tags.minimal_passing())
    k_minimal = _minimal(found)
    n_pass, n_fail = tags.counts()
    log.info(
        f"OLA: done, {len(evaluations)} nodes evaluated of {lattice.size},"
        f" {len(k_minimal)} k-minimal nodes"
    )
    return OlaSearchResult(
        k_minimal=k_minimal,
        evaluated=len(evaluations),
        lattice_size=lattice.size,
        evaluations=evaluations,
        tagged_passing=n_pass,
        tagged_failing=n_fail,
    )


def exhaustive_search(lattice: Lattice, is_passing: Callable[[Node], bool]) -> OlaSearchResult:
    """Reference search: evaluate every node, keep the passing nodes with no passing direct
    specialization. Used to check :func:`ola_search`; costs one evaluation per node."""
    evaluations = {node: bool(is_passing(node)) for node in lattice.all_nodes()}
    k_minimal = [
        n for n, ok in evaluations.items()
        if ok and not any(evaluations[p] for p in lattice.predecessors(n))
    ]
    k_minimal.sort(key=lambda n: (sum(n), n))
    n_pass = sum(evaluations.values())
    return OlaSearchResult(
        k_minimal=k_minimal,
        evaluated=len(evaluations),
        lattice_size=lattice.size,
        evaluations=evaluations,
        tagged_passing=n_pass,
        tagged_failing=len(evaluations) - n_pass,
    )
