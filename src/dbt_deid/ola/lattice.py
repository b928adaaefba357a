"""The generalization lattice searched by OLA (El Emam et al., JAMIA 2009).

A node assigns one generalization level to every quasi-identifier (QI). El Emam et al. 2009 (CJHP),
"Apply Generalization and Suppression" (Table 2), bounds each QI's level by the maximum acceptable
generalization; the bottom node holds every QI at its minimum level and the top node at its
maximum. Node A is a *generalization* of node B (B a *specialization* of A) when A's level is >=
B's level on every QI; the height of a node is the sum of its levels above the minimums.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from dbt_deid.errors import ConfigError

Node = tuple[int, ...]


_SUFFIX_LIMIT = 1 << 12  # nodes in the trailing sub-box enumerated at once


@lru_cache(maxsize=256)
def _suffix_table(shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Every offset of a small box (at most ``_SUFFIX_LIMIT`` nodes), ordered by sum and
    lexicographically within a sum, and the start of each sum's block (``starts[s]`` ..
    ``starts[s + 1]``)."""
    d = len(shape)
    if d == 0:
        table = np.zeros((1, 0), dtype=np.int64)
        table.flags.writeable = False
        return table, np.array([0, 1])
    grid = np.indices(shape, dtype=np.int16).reshape(d, -1).T
    sums = grid.sum(axis=1, dtype=np.int64)
    order = np.argsort(sums, kind="stable")
    table = grid[order]
    starts = np.searchsorted(sums[order], np.arange(sum(s - 1 for s in shape) + 2))
    table.flags.writeable = False
    return table, starts


def _prefixes(shape: tuple[int, ...], low_sum: int, high_sum: int) -> Iterator[tuple[int, ...]]:
    """Offsets ``0 <= o < shape`` with ``low_sum <= sum(o) <= high_sum``, lexicographically."""
    d = len(shape)
    room = [0] * (d + 1)
    for i in range(d - 1, -1, -1):
        room[i] = room[i + 1] + shape[i] - 1
    prefix = [0] * d

    def rec(i: int, used: int) -> Iterator[tuple[int, ...]]:
        if i == d:
            yield tuple(prefix)
            return
        for add in range(max(0, low_sum - used - room[i + 1]),
                         min(shape[i] - 1, high_sum - used) + 1):
            prefix[i] = add
            yield from rec(i + 1, used + add)

    if d == 0:
        if low_sum <= 0 <= high_sum:
            yield ()
        return
    yield from rec(0, 0)


def iter_box(
    low: Sequence[int], high: Sequence[int], total: int, chunk: int = 8192
) -> Iterator[np.ndarray]:
    """Integer vectors ``n`` with ``low <= n <= high`` and ``sum(n) == total``, in
    lexicographic order, as int64 arrays of at most about ``chunk`` rows (one row per vector).
    Never materializes the whole set: memory is bounded by ``chunk`` plus one block of the
    trailing sub-box (``_SUFFIX_LIMIT`` vectors), whatever the box size."""
    low_a = np.asarray(low, dtype=np.int64)
    shape = tuple(int(h - lo + 1) for lo, h in zip(low, high, strict=True))
    need = int(total) - int(low_a.sum())
    if need < 0 or need > sum(shape) - len(shape):
        return
    d = len(shape)
    split = d
    volume = 1
    while split > 0 and volume * shape[split - 1] <= _SUFFIX_LIMIT:
        split -= 1
        volume *= shape[split]
    table, starts = _suffix_table(shape[split:])
    max_suffix = sum(s - 1 for s in shape[split:])
    parts: list[np.ndarray] = []
    rows = 0
    for prefix in _prefixes(shape[:split], need - max_suffix, need):
        rest = need - sum(prefix)
        block = table[starts[rest]:starts[rest + 1]]
        out = np.empty((len(block), d), dtype=np.int64)
        out[:, :split] = prefix
        out[:, split:] = block
        out += low_a
        parts.append(out)
        rows += len(out)
        if rows >= chunk:
            yield parts[0] if len(parts) == 1 else np.concatenate(parts)
            parts, rows = [], 0
    if parts:
        yield parts[0] if len(parts) == 1 else np.concatenate(parts)


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
        (El Emam et al. 2009 (CJHP) Table 2). A cap above the hierarchy height is a
        :class:`ConfigError`."""
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
    def iter_level(
        self, low: Node, high: Node, height: int, chunk: int = 8192
    ) -> Iterator[np.ndarray]:
        """Nodes ``n`` with ``low <= n <= high`` and ``self.height(n) == height``, in
        lexicographic order, as int64 arrays of at most about ``chunk`` rows (see
        :func:`iter_box`)."""
        return iter_box(low, high, height + sum(self.min_levels), chunk)

    def nodes_between(self, low: Node, high: Node, height: int) -> list[Node]:
        """Nodes ``n`` with ``low <= n <= high`` and ``self.height(n) == height``, in
        lexicographic order (a list: for small lattices and tests; the search uses
        :meth:`iter_level`)."""
        return [tuple(r) for c in self.iter_level(low, high, height) for r in c.tolist()]

    def nodes_at_height(self, height: int) -> list[Node]:
        return self.nodes_between(self.bottom, self.top, height)

    def all_nodes(self) -> Iterator[Node]:
        """Every node, by height then lexicographically."""
        for h in range(self.max_height + 1):
            for c in self.iter_level(self.bottom, self.top, h):
                yield from map(tuple, c.tolist())

    def index(self, node: Node) -> tuple[int, ...]:
        """The node's position in a dense array shaped ``self.shape``."""
        return tuple(v - lo for v, lo in zip(node, self.min_levels, strict=True))

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(hi - lo + 1 for lo, hi in zip(self.min_levels, self.max_levels, strict=True))

    @cached_property
    def strides(self) -> np.ndarray:
        """Flat-index strides (C order over :attr:`shape`): the node ``n`` is at
        ``(n - min_levels) @ strides`` of a flat array of :attr:`size` entries."""
        out = np.ones(self.dims, dtype=np.int64)
        for j in range(self.dims - 2, -1, -1):
            out[j] = out[j + 1] * self.shape[j + 1]
        return out

    def flat(self, node: Node) -> int:
        """The node's position in a flat array of :attr:`size` entries (C order)."""
        return int(sum((v - lo) * s for v, lo, s in zip(node, self.min_levels,
                                                        self.strides.tolist(), strict=True)))

