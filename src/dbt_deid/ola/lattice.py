"""The generalization lattice searched by OLA (El Emam et al., JAMIA 2009).

A node assigns one generalization level to every quasi-identifier (QI). Seed 003, "Apply
Generalization and Suppression" (Table 2), bounds each QI's level by the maximum acceptable
generalization; the bottom node holds every QI at its minimum level and the top node at its
maximum. Node A is a *generalization* of node B (B a *specialization* of A) when A's level is >=
B's level on every QI; the height of a node is the sum of its levels above the minimums.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from dbt_deid.errors import ConfigError

Node = tuple[int, ...]


@lru_cache(maxsize=4096)
def _offsets(shape: tuple[int, ...], need: int) -> np.ndarray:
    """Offsets ``o`` with ``0 <= o < shape`` summing to ``need``, lexicographically ordered
    (cached per box shape: sub-lattices of the same shape share them)."""
    out: list[tuple[int, ...]] = []
    d = len(shape)
    room = [0] * (d + 1)
    for i in range(d - 1, -1, -1):
        room[i] = room[i + 1] + shape[i] - 1
    prefix = [0] * d

    def rec(i: int, left: int) -> None:
        if i == d - 1:
            prefix[i] = left
            out.append(tuple(prefix))
            return
        for add in range(max(0, left - room[i + 1]), min(shape[i] - 1, left) + 1):
            prefix[i] = add
            rec(i + 1, left - add)

    rec(0, need)
    result = np.array(out, dtype=np.int64).reshape(len(out), d)
    result.flags.writeable = False
    return result


@dataclass(frozen=True)
class Lattice:
    """The box ``min_levels <= node <= max_levels`` of level vectors, one level per QI in
    ``names``."""

    names: tuple[str, ...]
    min_levels: tuple[int, ...]
    max_levels: tuple[int, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "names", tuple(self.names))
        object.__setattr__(self, "min_levels", tuple(int(v) for v in self.min_levels))
        object.__setattr__(self, "max_levels", tuple(int(v) for v in self.max_levels))
        if not self.names:
            raise ConfigError("the lattice needs at least one quasi-identifier")
        if len(set(self.names)) != len(self.names):
            raise ConfigError(f"lattice quasi-identifier names repeat: {list(self.names)}")
        if not len(self.names) == len(self.min_levels) == len(self.max_levels):
            raise ConfigError(
                f"lattice has {len(self.names)} names, {len(self.min_levels)} minimum levels and"
                f" {len(self.max_levels)} maximum levels; they must match"
            )
        for name, lo, hi in zip(self.names, self.min_levels, self.max_levels, strict=True):
            if lo < 0 or hi < lo:
                raise ConfigError(
                    f"lattice levels of {name!r} must satisfy 0 <= minimum <= maximum,"
                    f" got minimum {lo} and maximum {hi}"
                )

    @classmethod
    def from_heights(
        cls,
        heights: dict[str, int],
        max_levels: dict[str, int] | None = None,
        min_levels: dict[str, int] | None = None,
    ) -> Lattice:
        """A lattice from hierarchy heights, capped by per-QI maximum acceptable levels
        (seed 003 Table 2). A cap above the hierarchy height is a :class:`ConfigError`."""
        max_levels = dict(max_levels or {})
        min_levels = dict(min_levels or {})
        for label, given in (("max level", max_levels), ("min level", min_levels)):
            unknown = sorted(set(given) - set(heights))
            if unknown:
                raise ConfigError(f"{label} given for unknown column(s) {unknown}")
        names = tuple(heights)
        his = []
        for n in names:
            cap = max_levels.get(n, heights[n])
            if isinstance(cap, bool) or not isinstance(cap, int) or not 0 <= cap <= heights[n]:
                raise ConfigError(
                    f"max level of {n!r} must be an integer in [0, {heights[n]}] (the hierarchy"
                    f" height), got {cap!r}"
                )
            his.append(cap)
        los = tuple(int(min_levels.get(n, 0)) for n in names)
        return cls(names, los, tuple(his))

    # -- size and heights ------------------------------------------------------------------
    @property
    def dims(self) -> int:
        return len(self.names)

    @cached_property
    def size(self) -> int:
        """Number of nodes: the product of (max - min + 1) over the QIs."""
        out = 1
        for lo, hi in zip(self.min_levels, self.max_levels, strict=True):
            out *= hi - lo + 1
        return out

    @property
    def bottom(self) -> Node:
        return self.min_levels

    @property
    def top(self) -> Node:
        return self.max_levels

    @property
    def max_height(self) -> int:
        return self.height(self.top)

    def height(self, node: Node) -> int:
        """Sum of the node's levels above the per-QI minimums (the bottom has height 0)."""
        return sum(node) - sum(self.min_levels)

    def contains(self, node: Node) -> bool:
        return len(node) == self.dims and all(
            lo <= v <= hi for v, lo, hi in zip(node, self.min_levels, self.max_levels, strict=True)
        )

    def check(self, node: Node) -> Node:
        """The node as a tuple of ints; :class:`ConfigError` when it is outside the lattice."""
        node = tuple(int(v) for v in node)
        if not self.contains(node):
            raise ConfigError(
                f"node {node} is outside the lattice {self.min_levels}..{self.max_levels}"
            )
        return node

    # -- order -------------------------------------------------------------------------------
    @staticmethod
    def is_generalization(a: Node, b: Node) -> bool:
        """True when ``a`` generalizes ``b`` (``a >= b`` on every QI; a node generalizes itself)."""
        return all(x >= y for x, y in zip(a, b, strict=True))

    def successors(self, node: Node) -> list[Node]:
        """Direct generalizations: one QI one level up."""
        out = []
        for i, hi in enumerate(self.max_levels):
            if node[i] < hi:
                out.append(node[:i] + (node[i] + 1,) + node[i + 1 :])
        return out

    def predecessors(self, node: Node) -> list[Node]:
        """Direct specializations: one QI one level down."""
        out = []
        for i, lo in enumerate(self.min_levels):
            if node[i] > lo:
                out.append(node[:i] + (node[i] - 1,) + node[i + 1 :])
        return out

    # -- enumeration -------------------------------------------------------------------------
    def nodes_between(self, low: Node, high: Node, height: int) -> list[Node]:
        """Nodes ``n`` with ``low <= n <= high`` and ``self.height(n) == height``, in
        lexicographic order."""
        shape = tuple(h - lo + 1 for lo, h in zip(low, high, strict=True))
        need = height + sum(self.min_levels) - sum(low)
        if need < 0 or need > sum(shape) - len(shape):
            return []
        offsets = _offsets(shape, need)
        return list(map(tuple, (offsets + np.asarray(low, dtype=np.int64)).tolist()))

    def nodes_at_height(self, height: int) -> list[Node]:
        return list(self.nodes_between(self.bottom, self.top, height))

    def all_nodes(self) -> Iterator[Node]:
        """Every node, by height then lexicographically."""
        for h in range(self.max_height + 1):
            yield from self.nodes_between(self.bottom, self.top, h)

    def index(self, node: Node) -> tuple[int, ...]:
        """The node's position in a dense array shaped ``self.shape``."""
        return tuple(v - lo for v, lo in zip(node, self.min_levels, strict=True))

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(hi - lo + 1 for lo, hi in zip(self.min_levels, self.max_levels, strict=True))
