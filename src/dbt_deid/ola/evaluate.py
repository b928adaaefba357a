"""Node evaluation on the compact pattern table (El Emam et al. 2009; El Emam et al. 2012 "Base
Algorithm").

A node passes when the records in equivalence classes smaller than k (the records that would be
suppressed) are at most MaxSup of all records. The source records are never re-read: the
evaluator holds the integer-coded pattern table (distinct QI tuples with counts), encoded once,
and for every evaluated node its *generalized* pattern table (distinct generalized tuples with
counts, sorted by class key). A new node is derived from the smallest cached table of a node it
generalizes (a direct specialization when one is cached), by mapping each changed column's codes
through a level-to-level lookup array and merging rows with equal int64 keys: a table is held as
sorted keys made of one bit field per QI, wide enough for the QI's values present in the data,
so deriving a node rewrites only the fields of the QIs whose level changes (shift, mask, lookup,
add), then sorts and sums. Codes are "compact": per QI and level, only the values present in the
data are numbered, so the fields stay narrow. The rewrite and the merge after numpy's sort are
two compiled loops (:mod:`dbt_deid.ola.kernels`, numba) that also count the suppressed records;
the numpy passes (:func:`group_keys`) are the reference they are tested against.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Sequence
from functools import lru_cache
from operator import gt
from types import ModuleType

import numpy as np
import pandas as pd

from dbt_deid.errors import ConfigError, DataError
from dbt_deid.ola.hierarchies import Hierarchy
from dbt_deid.ola.lattice import Node
from dbt_deid.patterns import record_counts

_DENSE_KEYS = 1 << 22  # use bincount over the whole key space up to this many keys
_DENSE_MIN_ROWS = 1 << 15  # roll-ups of tables this large count classes in a dense array ...
_DENSE_RATIO = 0.25  # ... when the node's value combinations are at most this many per row
_NONE = np.iinfo(np.int64).max
_KEY_LIMIT = 1 << 62
_COMPILED = True  # roll up keyed tables with the compiled loops of :mod:`kernels`


@lru_cache(maxsize=1)
def _kernels() -> ModuleType:
    """:mod:`dbt_deid.ola.kernels`, imported on the first roll-up (numba takes ~0.3 s to
    import, which code that never searches a lattice should not pay)."""
    from dbt_deid.ola import kernels

    return kernels


class _Layout:
    """How a keyed table's int64 key holds the QI codes: field j is ``(key >> shift[j]) &
    mask[j]`` and holds the compact code of QI j at the table's level; ``orig[j][level]`` maps a
    compact code to the hierarchy's code at that level (``labels[level]`` index)."""

    __slots__ = ("shift", "mask", "orig")

    def __init__(self, shift: np.ndarray, mask: np.ndarray, orig: list[list[np.ndarray]]) -> None:
        self.shift = shift
        self.mask = mask
        self.orig = orig


class ClassTable:
    """A generalized pattern table: the equivalence classes of one node.

    ``counts[i]`` is the size of class i; :meth:`column` / :attr:`codes` give each class's code
    of every QI at the node's level (the index into the hierarchy's ``labels[level]``). The
    table is held either as sorted int64 ``keys`` (one bit field per QI, see :class:`_Layout`)
    or, when the fields do not fit 62 bits, as a matrix of ``codes``.
    """

    __slots__ = ("node", "counts", "keys", "_codes", "_layout", "_k", "_small", "_sup")

    def __init__(
        self,
        node: Node,
        counts: np.ndarray,
        *,
        codes: np.ndarray | None = None,
        keys: np.ndarray | None = None,
        layout: _Layout | None = None,
    ) -> None:
        self.node = node
        self.counts = counts
        self.keys = keys
        self._codes = codes
        self._layout = layout
        self._k = -1
        self._small: np.ndarray | None = None
        self._sup = 0

    @property
    def layout(self) -> _Layout | None:
        """The key layout (None when the table holds a code matrix)."""
        return self._layout if self.keys is not None else None

    def _classify(self, k: int) -> None:
        if self._k != k:
            small = self.counts < k
            self._sup = int(self.counts[small].sum()) if small.any() else 0
            self._small = small if self._sup else None
            self._k = k

    def preset(self, k: int, suppressed: int) -> None:
        """Record the records in classes smaller than k, counted while the table was built
        (:func:`dbt_deid.ola.kernels.merge_sorted`); the mask of those classes is made when
        first asked."""
        self._k = k
        self._sup = int(suppressed)
        self._small = None
        if suppressed:
            self._k = -2 - k  # small(k) builds the mask, suppressed(k) reads _sup

    def _ensure(self, k: int) -> None:
        if self._k == -2 - k:
            self._small = self.counts < k
            self._k = k
        elif self._k != k:
            self._classify(k)

    @property
    def codes(self) -> np.ndarray:
        if self._codes is None:
            out = np.empty((len(self.counts), len(self.node)), dtype=np.int32)
            for j in range(len(self.node)):
                out[:, j] = self.column(j)
            self._codes = out
        return self._codes

    def column(self, j: int, rows: np.ndarray | None = None) -> np.ndarray:
        """Codes of QI j at the node's level (of the selected rows only, when given)."""
        if self._codes is not None or self.keys is None:
            col = self.codes[:, j]
            return col if rows is None else col[rows]
        lay = self._layout
        keys = self.keys if rows is None else self.keys[rows]
        compact = (keys >> lay.shift[j]) & lay.mask[j]
        return lay.orig[j][self.node[j]][compact]

    @property
    def nbytes(self) -> int:
        """Memory held by the table's arrays."""
        held = self.keys if self.keys is not None else self._codes
        return int(held.nbytes) + int(self.counts.nbytes)

    def suppressed(self, k: int) -> int:
        """Records in classes smaller than k."""
        if self._k != k and self._k != -2 - k:
            self._classify(k)
        return self._sup

    def small(self, k: int) -> np.ndarray | None:
        """Mask of the classes smaller than k (None when there are none)."""
        self._ensure(k)
        return self._small


def group_keys(
    keys: np.ndarray, counts: np.ndarray, key_bits: int = 63, count_bits: int = 63
) -> tuple[np.ndarray, np.ndarray]:
    """Merge equal non-negative keys, summing counts; keys come out sorted.

    When ``key_bits + count_bits <= 63`` (keys < 2**key_bits, counts < 2**count_bits) each key
    and its count are packed into one int64 and sorted in place (``np.sort`` is several times
    faster than ``np.argsort``); otherwise an argsort is used."""
    if key_bits + count_bits <= 63:
        packed = (keys << count_bits) | counts
        packed.sort()
        sk = packed >> count_bits
        new = np.empty(len(sk), dtype=bool)
        new[0] = True
        np.not_equal(sk[1:], sk[:-1], out=new[1:])
        starts = np.flatnonzero(new)
        return sk[starts], _segment_sums(packed & ((1 << count_bits) - 1), starts)
    order = np.argsort(keys)
    sk = keys[order]
    starts = np.flatnonzero(np.concatenate(([True], sk[1:] != sk[:-1])))
    return sk[starts], _segment_sums(counts[order], starts)


def _segment_sums(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Sums of ``values`` over the segments beginning at ``starts`` (a cumulative-sum
    difference; faster than ``np.add.reduceat``)."""
    cs = np.cumsum(values)
    ends = np.empty(len(starts), dtype=np.int64)
    np.subtract(starts[1:], 1, out=ends[:-1])
    ends[-1] = len(values) - 1
    ends = cs[ends]
    out = np.empty_like(ends)
    out[0] = ends[0]
    np.subtract(ends[1:], ends[:-1], out=out[1:])
    return out


def aggregate(codes: np.ndarray, counts: np.ndarray, radices: Sequence[int]) -> tuple[
    np.ndarray, np.ndarray
]:
    """Merge rows with equal code tuples, summing counts; rows come out sorted by key
    ``sum(code_j * stride_j)`` (strides: mixed radix over ``radices``, last column fastest)."""
    d = codes.shape[1]
    space = 1
    for r in radices:
        space *= max(int(r), 1)
    if space >= 1 << 62:  # keys would overflow int64: rank the rows column by column
        first, inverse = _row_ranks(codes, radices)
        sums = np.bincount(inverse, weights=counts, minlength=len(first))
        return np.asfortranarray(codes[first], dtype=np.int32), sums.astype(np.int64)
    strides = np.empty(d, dtype=np.int64)
    s = 1
    for j in range(d - 1, -1, -1):
        strides[j] = s
        s *= max(int(radices[j]), 1)
    keys = codes[:, 0].astype(np.int64) * strides[0]
    for j in range(1, d):
        keys += codes[:, j].astype(np.int64) * strides[j]
    if space <= max(_DENSE_KEYS, 2 * len(keys)):
        sums = np.bincount(keys, weights=counts, minlength=space)
        ukeys = np.flatnonzero(sums)
        out_counts = sums[ukeys].astype(np.int64)
    else:
        ukeys, inverse = np.unique(keys, return_inverse=True)
        out_counts = np.bincount(inverse, weights=counts, minlength=len(ukeys)).astype(np.int64)
    out = np.empty((len(ukeys), d), dtype=np.int32, order="F")  # column-major: per-QI passes
    for j in range(d):
        out[:, j] = (ukeys // strides[j]) % max(int(radices[j]), 1)
    return out, out_counts


def _row_ranks(codes: np.ndarray, radices: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows of ``codes`` in lexicographic order, for tables whose mixed-radix key
    overflows int64 (many QIs): the key is built column by column (``key * radix + code``) and
    replaced by its dense rank (order-preserving) whenever the next column would overflow it.
    Returns the index of one row per distinct row (in that order) and each row's rank: the
    same classes and order as ``np.unique(codes, axis=0)``, a few int64 sorts instead of one
    sort of whole rows (about 10x faster on 30 QIs)."""
    key = np.zeros(len(codes), dtype=np.int64)
    space = 1
    for j in range(codes.shape[1]):
        r = max(int(radices[j]), 1)
        if space * r >= 1 << 62:
            ranks, key = np.unique(key, return_inverse=True)
            key = key.ravel().astype(np.int64)
            space = len(ranks)
        key = key * r + codes[:, j]
        space *= r
    _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
    return first, inverse.ravel()


def allowed_suppression(max_suppression: float, n_records: int) -> int:
    """MaxSup as a number of records: floor(MaxSup * n) (guarded against float error)."""
    return math.floor(round(max_suppression * n_records, 9))


def check_k_and_max_suppression(k: object, max_suppression: object) -> None:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 2:
        raise ConfigError(f"k must be an integer >= 2, got {k!r}")
    ok = isinstance(max_suppression, (int, float)) and not isinstance(max_suppression, bool)
    if not ok or not 0 <= max_suppression <= 1:
        raise ConfigError(f"max_suppression must be a number in [0, 1], got {max_suppression!r}")


class NodeEvaluator:
    """Evaluates lattice nodes on an integer-coded pattern table.

    ``codes[i, j]``: leaf code of QI j in pattern i (see :meth:`Hierarchy.encode`);
    ``counts[i]``: records with pattern i. ``cache_bytes`` bounds the memory held by cached
    generalized tables; the least recently used tables are dropped first.
    """

    _RECENT = 1024  # cached tables scanned for a base when no direct specialization is cached

    def __init__(
        self,
        hierarchies: Sequence[Hierarchy],
        codes: np.ndarray,
        counts: np.ndarray,
        k: int,
        max_suppression: float,
        cache_bytes: int = 512 * 2**20,
    ) -> None:
        check_k_and_max_suppression(k, max_suppression)
        self.hierarchies = list(hierarchies)
        self.k = int(k)
        self.max_suppression = float(max_suppression)
        codes = np.ascontiguousarray(codes, dtype=np.int32)
        counts = np.asarray(counts, dtype=np.int64)
        if codes.ndim != 2 or codes.shape[1] != len(self.hierarchies):
            raise DataError("pattern codes must have one column per hierarchy")
        if len(counts) != len(codes) or len(codes) == 0:
            raise DataError("the pattern table is empty or its counts do not match its rows")
        if (counts <= 0).any():
            raise DataError("the pattern table has a count <= 0")
        d = len(self.hierarchies)
        self._heights = tuple(h.height for h in self.hierarchies)
        self.n_records = int(counts.sum())
        self.allowed = allowed_suppression(self.max_suppression, self.n_records)
        leaves = tuple(0 for _ in self.hierarchies)
        # compact codes: per QI and level, the values present in the data, in code order
        self._compact: list[list[np.ndarray]] = []  # hierarchy code -> compact code (-1 absent)
        orig: list[list[np.ndarray]] = []  # compact code -> hierarchy code
        widths = []
        for j, h in enumerate(self.hierarchies):
            present = np.unique(codes[:, j])
            per_level, back = [], []
            for lvl in range(h.height + 1):
                at = np.unique(h.maps[lvl][present])
                fwd = np.full(len(h.labels[lvl]), -1, dtype=np.int64)
                fwd[at] = np.arange(len(at))
                per_level.append(fwd)
                back.append(at.astype(np.int32))
            self._compact.append(per_level)
            orig.append(back)
            widths.append(int(len(present) - 1).bit_length())
        # the widest field is the most significant: once its QI is generalized its top bits are
        # zero, which often leaves room to pack the count next to the key (see table())
        self._order = sorted(range(d), key=lambda j: (-widths[j], j))  # most significant first
        shift = np.zeros(d, dtype=np.int64)
        used = 0
        for j in reversed(self._order):
            shift[j] = used
            used += widths[j]
        self._key_bits = used
        self._count_bits = max(self.n_records.bit_length(), 1)
        self._shift = shift
        self._mask = np.array([(1 << w) - 1 for w in widths], dtype=np.int64)
        self._present = [[len(b) for b in back] for back in orig]  # values per QI and level
        self._largest = []  # records in the largest value group, per QI and level
        for j, h in enumerate(self.hierarchies):
            f = np.bincount(codes[:, j], weights=counts, minlength=h.n_leaves)
            self._largest.append([int(np.bincount(h.maps[lvl], weights=f).max())
                                  for lvl in range(h.height + 1)])
        self._layout = _Layout(shift, self._mask, orig)
        if (1 << self._key_bits) < _KEY_LIMIT:
            keys = np.zeros(len(codes), dtype=np.int64)
            for j in range(d):
                keys |= self._compact[j][0][codes[:, j]] << shift[j]
            ukeys, ucounts = group_keys(keys, counts, self._key_bits, self._count_bits)
            self.leaf_table = self._keyed(leaves, ukeys, ucounts)
        else:  # the fields overflow int64: whole rows of codes
            self._layout = None
            radices = [max(h.n_leaves, 1) for h in self.hierarchies]
            u, c = aggregate(codes, counts, radices)
            self.leaf_table = ClassTable(leaves, c, codes=u)
        self.cache_bytes = cache_bytes
        self._cache: OrderedDict[Node, ClassTable] = OrderedDict()
        self._bytes = 0
        # recently cached tables, scanned for a base when no direct specialization is cached
        self._recent_nodes = np.zeros((self._RECENT, d), dtype=np.int32)
        # nodes packed one level field per QI with a guard bit on top: M <= N on every QI iff
        # ((N | G) - M) & G == G (no borrow crosses a field: each field's difference is >= 1)
        node_bits = [max(hh, 1).bit_length() + 1 for hh in self._heights]
        self._node_shift: list[int] | None = None
        if sum(node_bits) <= 63:
            self._node_shift, used, guard = [], 0, 0
            for b in node_bits:
                self._node_shift.append(used)
                guard |= 1 << (used + b - 1)
                used += b
            self._node_guard = guard
        self._recent_packed = np.zeros(self._RECENT, dtype=np.int64)
        self._recent_rows = np.full(self._RECENT, _NONE, dtype=np.int64)
        self._recent_of: dict[Node, int] = {}
        self._recent_at: list[Node | None] = [None] * self._RECENT
        self._recent_pos = 0
        self.tables_built = 0
        self._deltas: dict[tuple, np.ndarray] = {}
        self._delta_flat = np.zeros(0, dtype=np.int64)
        self._delta_offsets: dict[tuple[int, int, int], int] = {}

    @classmethod
    def from_frame(
        cls,
        frame: pd.DataFrame,
        hierarchies: dict[str, Hierarchy],
        k: int,
        max_suppression: float,
        count_column: str | None = "n",
    ) -> NodeEvaluator:
        """From a pattern table (``count_column`` holds the counts) or a record table
        (``count_column=None``); the QIs are the keys of ``hierarchies``, in order."""
        missing = [c for c in hierarchies if c not in frame.columns]
        if missing:
            raise DataError(
                f"table has no column(s) {missing} named by the hierarchies; it has"
                f" {list(frame.columns)}"
            )
        if len(frame) == 0:
            raise DataError("the table has no records")
        counts = record_counts(frame, count_column)
        codes = np.empty((len(frame), len(hierarchies)), dtype=np.int32)
        for j, (c, h) in enumerate(hierarchies.items()):
            codes[:, j] = h.encode(frame[c])
        return cls(list(hierarchies.values()), codes, counts, k, max_suppression)

    # -- tables ------------------------------------------------------------------------------
    def _base_for(self, node: Node) -> ClassTable:
        """A cached table of a specialization of ``node`` with few classes: the smallest cached
        direct specialization, else the smallest among the recently cached tables, else the
        leaf table."""
        best = self.leaf_table
        rows = len(best.counts)
        get = self._cache.get
        probe = list(node)
        for j, lvl in enumerate(node):
            if lvl:
                probe[j] = lvl - 1
                t = get(tuple(probe))
                probe[j] = lvl
                if t is not None and len(t.counts) < rows:
                    best, rows = t, len(t.counts)
        if best is not self.leaf_table or not self._recent_of:
            return best
        if self._node_shift is not None:
            guard = self._node_guard
            ok = ((self._pack(node) | guard) - self._recent_packed) & guard == guard
        else:
            ok = (self._recent_nodes <= np.asarray(node, dtype=np.int32)).all(axis=1)
        rows = np.where(ok, self._recent_rows, _NONE)
        i = int(np.argmin(rows))
        if rows[i] >= len(best.counts):
            return best
        return self._cache[self._recent_at[i]]

    def table(self, node: Node) -> ClassTable:
        """The generalized pattern table of ``node``, rolled up from a cached specialization
        with few classes."""
        node = tuple(map(int, node))
        hit = self._cache.get(node)
        if hit is not None:
            self._cache.move_to_end(node)
            return hit
        if node == self.leaf_table.node:
            return self.leaf_table
        if len(node) != len(self._heights) or min(node) < 0 or any(
                map(gt, node, self._heights)):
            raise ConfigError(f"node {node} is outside the hierarchies' levels")
        base = self._base_for(node)
        if base is self.leaf_table:
            # no evaluated specialization: go through the "one level up" node min(node, 1),
            # cached and shared by every node raising the same QIs
            step = tuple(min(v, 1) for v in node)
            if step != node and sum(step) > 1:
                base = self.table(step)
        changed = [j for j, a in enumerate(base.node) if a != node[j]]
        if base.keys is not None:
            radices = None
            if len(base.keys) >= _DENSE_MIN_ROWS:
                radices = [self._present[j][lvl] for j, lvl in enumerate(node)]
                if math.prod(radices) > _DENSE_RATIO * len(base.keys):
                    radices = None
            bits, count_bits = self._key_bits, self._count_bits
            if radices is None and bits + count_bits > 63:
                bits, count_bits = self._bound_bits(node)
            if radices is not None:
                ukeys, ucounts = self._group_dense(base, node, radices)
            elif _COMPILED and bits + count_bits <= 63:
                # change only the fields of the columns whose level differs, in one loop
                kernels = _kernels()
                packed = kernels.map_pack(
                    base.keys, base.counts, self._shift[changed], self._mask[changed],
                    np.array([self._delta_at(j, base.node[j], node[j]) for j in changed],
                             dtype=np.int64),
                    self._delta_flat, count_bits)
                packed.sort()
                ukeys, ucounts, sup = kernels.merge_sorted(packed, count_bits, self.k)
                result = self._keyed(node, ukeys, ucounts)
                result.preset(self.k, sup)
                self.tables_built += 1
                self._store(result)
                return result
            else:
                # change only the fields of the columns whose level differs
                keys = None
                for j in changed:
                    field = base.keys >> self._shift[j]
                    field &= self._mask[j]
                    delta = self._delta(j, base.node[j], node[j]).take(field)
                    if keys is None:
                        keys = delta
                        keys += base.keys
                    else:
                        keys += delta
                ukeys, ucounts = group_keys(keys, base.counts, bits, count_bits)
            result = self._keyed(node, ukeys, ucounts)
        else:
            mapped = base.codes.copy(order="F")  # column-major: per-QI passes
            for j in changed:
                mapped[:, j] = self.hierarchies[j].up(base.node[j], node[j])[mapped[:, j]]
            radices = [len(h.labels[lvl]) for h, lvl in zip(self.hierarchies, node, strict=True)]
            u, c = aggregate(mapped, base.counts, radices)
            result = ClassTable(node, c, codes=u)
        self.tables_built += 1
        self._store(result)
        return result

    def _pack(self, node: Node) -> int:
        """``node``'s levels as one integer, one field per QI (see ``_node_guard``)."""
        return sum(v << s for v, s in zip(node, self._node_shift, strict=True))

    def _bound_bits(self, node: Node) -> tuple[int, int]:
        """Bits of the largest key ``node``'s table can hold (its values present at each
        level, in the fixed fields) and of its largest class: a class lies inside one value
        group of every QI, so it is no larger than the smallest of the QIs' largest groups at
        the node's levels."""
        top = 0
        largest = self.n_records
        for j, lvl in enumerate(node):
            top |= (self._present[j][lvl] - 1) << int(self._shift[j])
            largest = min(largest, self._largest[j][lvl])
        return top.bit_length(), max(int(largest).bit_length(), 1)

    def _group_dense(self, base: ClassTable, node: Node, radices: list[int]
                     ) -> tuple[np.ndarray, np.ndarray]:
        """Classes of ``node`` from a large ``base`` without sorting: each row's compact codes
        at ``node``'s levels as one mixed-radix index into an array of the node's value
        combinations (at most ``_DENSE_RATIO`` per row), counted with ``np.bincount``; the
        non-empty entries, read in index order, are the classes in key order."""
        dense = np.zeros(len(base.keys), dtype=np.int64)
        for i, j in enumerate(self._order):  # most significant field first
            lower, upper = base.node[j], node[j]
            field = (base.keys >> self._shift[j]) & self._mask[j]
            if lower != upper:
                field = self._up(j, lower, upper)[field]
            if i:
                dense *= radices[j]
            dense += field
        sums = np.bincount(dense, weights=base.counts, minlength=math.prod(radices))
        index = np.flatnonzero(sums)
        counts = sums[index].astype(np.int64)
        keys = np.zeros(len(index), dtype=np.int64)
        for j in reversed(self._order):
            keys |= (index % radices[j]) << self._shift[j]
            index //= radices[j]
        return keys, counts

    def _up(self, j: int, lower: int, upper: int) -> np.ndarray:
        """QI j's compact code at level ``upper`` of each compact code at level ``lower``."""
        key = (j, lower, upper, "up")
        if key not in self._deltas:
            h = self.hierarchies[j]
            self._deltas[key] = self._compact[j][upper][h.up(lower, upper)[
                self._layout.orig[j][lower]]]
        return self._deltas[key]

    def _delta_at(self, j: int, lower: int, upper: int) -> int:
        """Offset of :meth:`_delta` (j, lower, upper) in ``_delta_flat``, the key changes of
        every QI and pair of levels laid end to end for
        :func:`dbt_deid.ola.kernels.map_pack`."""
        at = self._delta_offsets.get((j, lower, upper))
        if at is None:
            delta = self._delta(j, lower, upper)
            at = len(self._delta_flat)
            self._delta_flat = np.concatenate([self._delta_flat, delta])
            self._delta_offsets[(j, lower, upper)] = at
        return at

    def _delta(self, j: int, lower: int, upper: int) -> np.ndarray:
        """Key change of QI j's field going from level ``lower`` to ``upper``, by compact
        code."""
        key = (j, lower, upper)
        if key not in self._deltas:
            h = self.hierarchies[j]
            orig = self._layout.orig[j][lower]
            up = self._compact[j][upper][h.up(lower, upper)[orig]]
            self._deltas[key] = (up - np.arange(len(up))) << self._shift[j]
        return self._deltas[key]

    def _keyed(self, node: Node, keys: np.ndarray, counts: np.ndarray) -> ClassTable:
        return ClassTable(node, counts, keys=keys, layout=self._layout)

    def _store(self, t: ClassTable) -> None:
        nbytes = t.nbytes
        if nbytes > self.cache_bytes:
            return
        self._cache[t.node] = t
        self._bytes += nbytes
        pos = self._recent_pos
        old = self._recent_at[pos]
        if old is not None:
            self._recent_of.pop(old, None)
        self._recent_at[pos] = t.node
        self._recent_of[t.node] = pos
        self._recent_nodes[pos] = t.node
        if self._node_shift is not None:
            self._recent_packed[pos] = self._pack(t.node)
        self._recent_rows[pos] = len(t.counts)
        self._recent_pos = (pos + 1) % self._RECENT
        while self._bytes > self.cache_bytes:  # drop the least recently used tables
            old_node, old_t = self._cache.popitem(last=False)
            self._bytes -= old_t.nbytes
            slot = self._recent_of.pop(old_node, None)
            if slot is not None:
                self._recent_rows[slot] = _NONE
                self._recent_at[slot] = None

    def marginal_floor(self) -> tuple[int, ...]:
        """Per QI, the lowest level at which the records in its own value groups smaller than
        k are at most MaxSup (height + 1 when there is none). A record whose value of QI j is
        shared by fewer than k records at level l is in a class smaller than k at every node
        with QI j at level l (a class never spans two values of a QI), so every node with some
        QI below its floor fails: the searches tag those nodes without evaluating them. With
        :attr:`combinations` this holds for a QI in some combination; a QI in none gets 0."""
        leaf = self.leaf_table
        out = []
        for j, h in enumerate(self.hierarchies):
            if self.combinations is not None and not any(j in c for c in self.combinations):
                out.append(0)
                continue
            f = np.bincount(leaf.column(j), weights=leaf.counts, minlength=h.n_leaves)
            floor = h.height + 1
            for lvl in range(h.height + 1):
                big = np.bincount(h.maps[lvl], weights=f, minlength=len(h.labels[lvl]))
                if big[(big > 0) & (big < self.k)].sum() <= self.allowed:
                    floor = lvl
                    break
            out.append(floor)
        return tuple(out)

    # -- the criterion -----------------------------------------------------------------------
    #: QI positions of each protected combination (:mod:`dbt_deid.ola.combinations`); None:
    #: OLA's own classes over all QIs
    combinations: tuple[tuple[int, ...], ...] | None = None

    def judged(self, node: Node) -> ClassTable:
        """The node's class table with its small classes as the criterion sees them: those
        smaller than k over all QIs, or, with :attr:`combinations`, the classes (rows) whose
        records are in a class smaller than k on any combination."""
        t = self.table(node)
        if self.combinations is None:
            return t
        from dbt_deid.ola.combinations import small_in_any

        radices = [len(h.labels[lvl]) for h, lvl in zip(self.hierarchies, node, strict=True)]
        small = small_in_any(t.codes, t.counts, radices, self.combinations, self.k)
        view = ClassTable(node, t.counts, codes=t.codes)
        sup = int(t.counts[small].sum())
        view._k, view._sup, view._small = self.k, sup, (small if sup else None)
        return view

    def suppressed(self, node: Node) -> int:
        """Records the node would suppress: in classes smaller than k (see :meth:`judged`)."""
        return self.judged(node).suppressed(self.k)

    def is_passing(self, node: Node) -> bool:
        """El Emam et al. 2012 "Base Algorithm": the node passes when the share of records in
        classes smaller than k is at most MaxSup (``suppressed <= floor(MaxSup * n)``)."""
        return self.suppressed(node) <= self.allowed
