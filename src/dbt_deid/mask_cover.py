"""Mask-cover cell suppression: fewer suppressed cells, every release gate still passing.

An alternative to El Emam et al. 2011's combinations algorithm (discharge PUMF, "Combinations
Suppression Algorithm", Figure 4; :mod:`dbt_deid.suppression`, which stays the default and the
paper's reference). It is chosen with the release setting ``algorithm: mask_cover``; the outer
loop is the reference's (combinations ordered by their number of moles, repeated until no
combination has a class smaller than k, hierarchy propagation after every pass) and only the
step run on one combination differs: phase 1 and phase 2 are replaced by a greedy cover over
suppression masks.

The step, on one combination b with q columns, on the pattern table:

* The *small* patterns are those whose class on b (a suppressed cell its own category, as the
  ``k_anonymity`` gate counts) holds fewer than k records.
* A mask m is a set of columns of b. Suppressing m in a group of small patterns that agree on
  the other columns of b gives them one published tuple; they join the patterns already
  published with that tuple (m suppressed, the same values elsewhere). When the joined class
  has k records or more, the group is *covered* at the price of the newly suppressed cells,
  each weighted by its column's weight (w in [0, 1], higher = suppressed later; as the
  reference's wsup = sup x w, El Emam et al. 2011, "Combinations Suppression Algorithm").
* Greedy set cover (Chvatal 1979): repeatedly apply the mask with the lowest weighted price per
  covered record (ties: more records covered, then the mask's rank in a fixed enumeration by
  size then column position), re-evaluating lazily (a mask's price is recomputed when it comes
  out of the priority queue) until no mask covers a small pattern.
* Masks of 1 .. q-1 columns are enumerated, whole levels while they fit in ``MAX_MASKS``
  (every mask up to 12 columns). A mask that covers nothing in the first sweep is not priced
  again (re-sweeping found nothing more on testdata or the discharge release). What is left
  is the class of patterns with every column of b suppressed; when it has fewer than k
  records it is grown to k from classes that stay at k or above, exactly as in the
  reference (``_grow_fully_suppressed``).

Why every release gate passes (proof sketch, docs/suppression-exact.md): a group is applied
only when the class it joins reaches k, and whole classes move (all patterns of a class agree
on b, so they fall in the same group), so no class on b becomes small and the covered ones
stop being small; the step ends with every class on b at k or above. Each record's true values
are consistent with every record of its own published class (a published tuple is its true
tuple with some cells suppressed, and the class shares that tuple), so own-category classes
>= k imply exact consistent sets >= k. The outer loop stops only when every combination has
no class below k after propagation, so both gates (own-category and exact) hold on every
combination, as with the reference.

Work is on the pattern table with numpy: one evaluation of a mask is a key per small pattern
(``coded.row_keys``) and a group sum, no loop over records or patterns.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from dbt_deid.coded import dense_codes, row_keys
from dbt_deid.patterns import SUPPRESSED, PatternTable

MAX_MASKS = 4096
"""Masks enumerated per combination at most (all of them up to 12 columns)."""

COST_FLOOR = 1e-3
"""Added to each column weight, so a column of weight 0 is cheap but never free."""


def enumerate_masks(q: int, max_masks: int = MAX_MASKS) -> list[tuple[int, ...]]:
    """Masks (tuples of column positions) of 1 .. q-1 columns, by size then position: whole
    levels while their total stays within ``max_masks`` (the full mask is handled apart)."""
    masks: list[tuple[int, ...]] = []
    for d in range(1, q):
        level = list(itertools.combinations(range(q), d))
        if masks and len(masks) + len(level) > max_masks:
            break
        masks += level
    return masks


@dataclass
class _Snapshot:
    """The rows :meth:`_Cover.evaluate` reads, between two applications."""

    small_rows: np.ndarray
    small_codes: np.ndarray
    small_counts: np.ndarray
    join_rows: np.ndarray
    join_codes: np.ndarray
    join_counts: np.ndarray
    join_bits: np.ndarray  # distinct suppressed-column sets of the join rows, sorted
    join_starts: np.ndarray  # join rows with join_bits[g]: join_starts[g] .. join_starts[g+1]
    small_keys: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    join_keys: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))


class _Cover:
    """The state of the greedy cover on one combination."""

    def __init__(self, table: PatternTable, cols: np.ndarray, weights: np.ndarray, k: int,
                 closure: Sequence[Sequence[int]] | None = None,
                 column_price: np.ndarray | None = None):
        self.table = table
        self.cols = cols
        self.k = k
        self.cards = [len(table.labels[j]) for j in cols]
        # price of one cell per table column: the combination's weights, else column_price
        price = (np.full(len(table.columns), 1.0 + COST_FLOOR) if column_price is None
                 else np.asarray(column_price, dtype=float).copy())
        price[cols] = np.asarray(weights, dtype=float) + COST_FLOOR
        self.price = price
        # table columns a suppressed column of b takes along (itself, then propagation)
        self.closure = ([[int(j)] for j in cols] if closure is None
                        else [list(c) for c in closure])
        sub = table.codes[:, cols]
        self.bits = (sub == SUPPRESSED).astype(np.int64) @ (
            np.int64(1) << np.arange(len(cols), dtype=np.int64)
        )
        keys = row_keys(sub.astype(np.int64), self.cards)
        inverse, n_keys = dense_codes(keys)
        sizes = np.bincount(inverse, weights=table.counts, minlength=n_keys)
        self.small = sizes[inverse] < k
        radix = [c + 1 for c in self.cards]
        fits = float(np.prod(np.array(radix, dtype=float))) < 2.0**62
        self.mults = (np.cumprod([1, *radix[:0:-1]])[::-1].astype(np.int64) if fits else None)
        self._cached: _Snapshot | None = None

    def _rows(self) -> _Snapshot:
        """The small rows, and the rows that may be joined (not small, a cell of b suppressed)
        sorted by their suppressed columns, with codes, keys and counts. Kept until the next
        :meth:`apply`."""
        if self._cached is None:
            codes, counts = self.table.codes, self.table.counts
            small = np.flatnonzero(self.small)
            join = np.flatnonzero(~self.small & (self.bits != 0))
            join = join[np.argsort(self.bits[join], kind="stable")]
            bits, starts = np.unique(self.bits[join], return_index=True)
            snap = _Snapshot(
                small, codes[np.ix_(small, self.cols)].astype(np.int64), counts[small],
                join, codes[np.ix_(join, self.cols)].astype(np.int64), counts[join],
                bits, np.append(starts, len(join)),
            )
            if self.mults is not None:  # one mixed-radix key per row; a mask subtracts columns
                snap.small_keys = (snap.small_codes + 1) @ self.mults
                snap.join_keys = (snap.join_codes + 1) @ self.mults
            self._cached = snap
        return self._cached

    def _keep_keys(self, snap: _Snapshot, mask: tuple[int, ...], joinable: np.ndarray
                   ) -> np.ndarray:
        """Keys of the small rows, then of the joinable rows, on the columns outside ``mask``."""
        join_codes = snap.join_codes[joinable]
        if self.mults is None:  # too many categories for one int64: coded.row_keys
            keep = [p for p in range(len(self.cols)) if p not in mask]
            codes = np.concatenate([snap.small_codes[:, keep], join_codes[:, keep]])
            return row_keys(codes, [self.cards[p] for p in keep])
        m = list(mask)
        mults = self.mults[m]
        return np.concatenate([snap.small_keys - (snap.small_codes[:, m] + 1) @ mults,
                               snap.join_keys[joinable] - (join_codes[:, m] + 1) @ mults])

    def evaluate(self, mask: tuple[int, ...]) -> tuple[float, int, np.ndarray]:
        """(price per covered record, covered records, covered small rows) of ``mask``."""
        snap = self._rows()
        small_rows = snap.small_rows
        if len(small_rows) == 0:
            return 0.0, 0, small_rows
        bit = int(sum(1 << p for p in mask))
        # joinable: the rows whose suppressed columns include the mask (slices of `join`)
        groups = np.flatnonzero((snap.join_bits & bit) == bit)
        joinable = (np.concatenate([np.arange(snap.join_starts[g], snap.join_starts[g + 1])
                                    for g in groups.tolist()])
                    if len(groups) else np.zeros(0, dtype=np.int64))
        inverse, n_keys = dense_codes(self._keep_keys(snap, mask, joinable))
        counts = np.concatenate([snap.small_counts, snap.join_counts[joinable]])
        total = np.bincount(inverse, weights=counts, minlength=n_keys)
        n_small = len(small_rows)
        has_small = np.bincount(inverse[:n_small], minlength=n_keys) > 0
        hit = ((total >= self.k) & has_small)[inverse[:n_small]]
        if not hit.any():
            return 0.0, 0, small_rows[:0]
        covered_rows = small_rows[hit]
        covered_counts = snap.small_counts[hit]
        covered = int(covered_counts.sum())
        taken = sorted({j for p in mask for j in self.closure[p]})
        newly = self.table.codes[np.ix_(covered_rows, taken)] != SUPPRESSED
        cost = float((newly @ self.price[taken]) @ covered_counts)
        # rounded: equal prices must tie (then more records covered wins), not float noise
        return round(cost / covered, 9), covered, covered_rows

    def apply(self, mask: tuple[int, ...], rows: np.ndarray) -> int:
        """Suppress ``mask`` in ``rows``; returns the record cells newly suppressed."""
        mcols = self.cols[list(mask)]
        block = self.table.codes[np.ix_(rows, mcols)]
        cells = int(((block != SUPPRESSED).sum(axis=1) * self.table.counts[rows]).sum())
        self.table.codes[np.ix_(rows, mcols)] = SUPPRESSED
        self.bits[rows] |= int(sum(1 << p for p in mask))
        self.small[rows] = False
        self._cached = None
        return cells


Grow = Callable[[PatternTable, np.ndarray, int], tuple[int, int]]
"""Grows the fully suppressed class of a combination to k: (table, columns, k) -> (records
moved, cells suppressed). run_suppression passes the reference's (its
``_grow_fully_suppressed``), so this module does not import :mod:`dbt_deid.suppression`."""


def cover_combination(
    table: PatternTable, cols: np.ndarray, weights: np.ndarray, k: int, grow: Grow,
    max_masks: int = MAX_MASKS, propagation: Sequence[tuple[str, str]] = (),
    column_weights: Mapping[str, float] | None = None,
) -> tuple[int, int, int]:
    """The mask-cover step on one combination (module docstring), then ``grow`` on its fully
    suppressed class when it is below k. Returns (cells suppressed by the cover, records moved
    into the fully suppressed class, cells suppressed by that growth); ``table`` is modified.

    A mask's price counts the cells its columns take along by ``propagation`` (source,
    target): hierarchy levels that :func:`dbt_deid.families.propagate` will suppress after the
    pass, each at its weight in ``column_weights`` (default 1).
    """
    cols = np.asarray(cols)
    weights_by_name = dict(column_weights or {})
    column_price = np.array([float(weights_by_name.get(c, 1.0)) + COST_FLOOR
                             for c in table.columns])
    state = _Cover(table, cols, weights, k, propagation_closure(table, cols, propagation),
                   column_price)
    if not state.small.any():
        return 0, 0, 0
    masks = enumerate_masks(len(cols), max_masks)
    heap: list[tuple[float, int, int]] = []
    for rank, mask in enumerate(masks):
        price, covered, _ = state.evaluate(mask)
        if covered:
            heap.append((price, -covered, rank))
    heapq.heapify(heap)
    cells = 0
    while heap and state.small.any():
        _, _, rank = heapq.heappop(heap)
        price, covered, rows = state.evaluate(masks[rank])
        if not covered:
            continue
        entry = (price, -covered, rank)
        if heap and heap[0] < entry:  # stale: its price went up; compare again later
            heapq.heappush(heap, entry)
            continue
        cells += state.apply(masks[rank], rows)
        again = state.evaluate(masks[rank])  # rows it published can now be joined
        if again[1]:
            heapq.heappush(heap, (again[0], -again[1], rank))
    if state.small.any():  # the rest: every column of b suppressed
        rest = np.flatnonzero(state.small)
        cells += state.apply(tuple(range(len(cols))), rest)
    full = state.bits == (1 << len(cols)) - 1
    have = int(table.counts[full].sum())
    if have == 0 or have >= k:  # no fully suppressed class below k: nothing to grow
        return cells, 0, 0
    moved, growth_cells = grow(table, cols, k)
    return cells, moved, growth_cells


def propagation_closure(
    table: PatternTable, cols: np.ndarray, propagation: Sequence[tuple[str, str]]
) -> list[list[int]]:
    """For each column of ``cols``: the table columns suppressed with it (itself, then every
    target reachable through the (source, target) pairs present in the table)."""
    index = {c: i for i, c in enumerate(table.columns)}
    nxt: dict[int, list[int]] = {}
    for src, dst in propagation:
        if src in index and dst in index:
            nxt.setdefault(index[src], []).append(index[dst])
    out = []
    for j in cols.tolist():
        seen, todo = {j}, [j]
        while todo:
            for t in nxt.get(todo.pop(), []):
                if t not in seen:
                    seen.add(t)
                    todo.append(t)
        out.append(sorted(seen))
    return out


def mask_cover_step(
    table: PatternTable, cols: np.ndarray, weights: np.ndarray, k: int, *, grow: Grow,
    propagation: Sequence[tuple[str, str]] = (),
    column_weights: Mapping[str, float] | None = None,
) -> tuple[int, int, int]:
    """:func:`cover_combination` with the default mask budget: the per-combination step
    :func:`dbt_deid.suppression.run_suppression` calls for ``algorithm="mask_cover"`` (with
    the reference's growth, the run's propagation pairs and weights)."""
    return cover_combination(table, cols, weights, k, grow, propagation=propagation,
                             column_weights=column_weights)


def masks_enumerated(combination: Sequence[str], max_masks: int = MAX_MASKS) -> int:
    """How many masks the step enumerates for ``combination`` (for docs and logs)."""
    return len(enumerate_masks(len(combination), max_masks))
