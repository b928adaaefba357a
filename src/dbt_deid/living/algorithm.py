"""The steps of a refresh: seed 000's phases on the two views of a work table.

El Emam et al. (2011), "Combinations Suppression Algorithm" (Figure 4), as
:mod:`dbt_deid.suppression` runs it, with two views (:mod:`dbt_deid.living.views`) kept in
step. The class indexes of every combination in both views are built once and updated as cells
are suppressed (:class:`Indexes`), so a refresh whose changes touch few classes costs a few
passes over the table, not one per combination per pass; they are rebuilt only when rows are
split (the fully suppressed class grown) or cells are suppressed outside phase 2.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from dbt_deid.coded import dense_codes, row_keys
from dbt_deid.families import propagate
from dbt_deid.living.views import FIXED, FREE, WorkTable
from dbt_deid.patterns import SUPPRESSED, PatternTable
from dbt_deid.suppression import _ClassIndex, value_visits

VIEWS = ("V", "C")


def phase1(work: WorkTable, cols: Sequence[int], k: int) -> int:
    """Phase 1 (steps 1.1-1.4) on the new version: suppress each value whose support is below
    k in every current record. Returns the record cells suppressed."""
    rows = work.rows("V")
    cells = 0
    for j in cols:
        col = work.codes[rows, j]
        ok = col != SUPPRESSED
        support = np.bincount(col[ok], weights=work.counts[rows][ok],
                              minlength=len(work.labels[j]))
        rare = (support > 0) & (support < k)
        if rare.any():
            hit = rows[ok & rare[np.where(ok, col, 0)]]
            cells += int(work.counts[hit].sum())
            work.codes[hit, j] = SUPPRESSED
    return cells


_INT64_SAFE = 2**62


def _reduced_table(work: WorkTable, cols: np.ndarray, view: str, k: int
                   ) -> tuple[PatternTable, np.ndarray]:
    """The rows of one view that phase 2 may move, and one aggregated row per class of the
    others that a moved row can reach, as a pattern table; and each work row's position in it
    (-1: only counted).

    Rows that may move: the new records (in both views), and in the new version the rows of
    classes below k. Every other class is at k or above and can only gain records while they
    stay put, so its rows are counted, not indexed, and only when a moving row can reach it (a
    class whose shown cells are a moving row's with some suppressed): a refresh of 1% new
    records indexes a few percent of the table (El Emam et al. 2011's phase 2 only ever moves
    records of small classes). When a class of counted rows falls below k (a new record left
    it), :class:`Indexes` rebuilds the index, which then moves its rows."""
    rows = work.rows(view)
    radix = np.array([len(work.labels[j]) + 1 for j in cols], dtype=object)
    if np.prod(radix) >= _INT64_SAFE:  # keys would overflow: index every row
        pos = np.full(len(work.counts), -1, dtype=np.int64)
        pos[rows] = np.arange(len(rows))
        return work.table(rows), pos
    place = np.array([int(np.prod(radix[j + 1:])) for j in range(len(cols))], dtype=np.int64)
    digits = work.codes[np.ix_(rows, cols)].astype(np.int64) + 1  # suppressed -> 0
    keys = digits @ place
    moving = work.kind[rows] == FREE
    if view == "V":
        inverse, n_cls = dense_codes(keys)
        sizes = np.bincount(inverse, weights=work.counts[rows], minlength=n_cls)
        moving |= (sizes < k)[inverse]
    q = len(cols)
    subsets = np.array([[(m >> j) & 1 for m in range(2**q)] for j in range(q)], dtype=np.int64)
    reach = pd.unique((keys[moving][:, None] - (digits[moving] * place) @ subsets).ravel())
    still = np.flatnonzero(~moving)
    still = still[pd.Index(reach).get_indexer(keys[still]) >= 0]
    cls, first, back = np.unique(keys[still], return_index=True, return_inverse=True)
    kept = np.bincount(back.reshape(-1), weights=work.counts[rows[still]],
                       minlength=len(cls)).astype(np.int64)
    ind = rows[moving]
    rep = rows[still[first]]
    table = PatternTable(list(work.columns), np.vstack([work.codes[ind], work.codes[rep]]),
                         np.concatenate([work.counts[ind], kept]), list(work.labels),
                         np.concatenate([ind, np.full(len(rep), -1, dtype=np.int64)]))
    pos = np.full(len(work.counts), -1, dtype=np.int64)
    pos[ind] = np.arange(len(ind))
    return table, pos


class Indexes:
    """The equivalence classes (suppressed = its own category) of every combination in both
    views (:class:`dbt_deid.suppression._ClassIndex` over :func:`_reduced_table`), addressed by
    work-table row. An index is rebuilt when a row it only counts is suppressed (for another
    combination)."""

    def __init__(self, work: WorkTable, combinations: Sequence[np.ndarray], k: int) -> None:
        self.work = work
        self.k = k
        self.combinations = [np.asarray(c) for c in combinations]
        self._built: list[dict[str, tuple[_ClassIndex, np.ndarray]] | None] = (
            [None] * len(self.combinations))
        self.rebuilt = 0

    def _get(self, i: int) -> dict[str, tuple[_ClassIndex, np.ndarray]]:
        built = self._built[i]
        if built is None:
            built = {}
            for view in VIEWS:
                table, pos = _reduced_table(self.work, self.combinations[i], view, self.k)
                built[view] = (_ClassIndex(table, self.combinations[i], spare=0), pos)
            self._built[i] = built
            self.rebuilt += 1
        return built

    def moles(self, i: int, k: int) -> int:
        """M_b: classes below k in the new version, plus classes below k in the combined view
        that hold a record the refresh may suppress (the others cannot be repaired). Rebuilds
        the index first when a class of counted rows fell below k (its rows then move)."""
        built = self._get(i)
        v, _pos = built["V"]
        counted = np.flatnonzero(v.table.origin < 0)
        if (v.size[v.cid[counted]] < k).any():
            self._built[i] = None
            built = self._get(i)
            v, _pos = built["V"]
        sizes = v.size[: v.n_classes]
        c, pos = built["C"]
        fixable = np.unique(c.cid[pos[self.work.kind == FREE]])
        return int(((sizes > 0) & (sizes < k)).sum()) + int((c.size[fixable] < k).sum())

    def small(self, i: int, rows: np.ndarray, k: int) -> np.ndarray:
        """Which of ``rows`` are in a class below k, on combination ``i``, in either view."""
        out = np.zeros(len(rows), dtype=bool)
        for idx, pos_of in self._get(i).values():
            pos = pos_of[rows]
            there = pos >= 0
            out[there] |= idx.size[idx.cid[pos[there]]] < k
        return out

    def suppress(self, rows: np.ndarray, j: int, code: int) -> None:
        """Suppress column ``j`` (value ``code`` in every one of ``rows``) in every index."""
        for i, cols in enumerate(self.combinations):
            hit = np.flatnonzero(cols == j)
            built = self._built[i]
            if len(hit) == 0 or built is None:
                continue
            if (built["V"][1][rows] < 0).any():  # a row this index only counts moves
                self._built[i] = None
                continue
            for idx, pos_of in built.values():
                at = pos_of[rows]
                at = at[at >= 0]
                if len(at):
                    idx.suppress(at, int(hit[0]), code)
        self.work.codes[rows, j] = SUPPRESSED

    def needs_growth(self, i: int, k: int) -> bool:
        """Whether a view's fully suppressed class on combination ``i`` is in 1..k-1."""
        for idx, _pos in self._get(i).values():
            full = idx.cid_of_key(0)
            if full is not None and 0 < idx.size[full] < k:
                return True
        return False


def phase2_combination(ix: Indexes, i: int, weights: np.ndarray, k: int) -> int:
    """Phase 2 (steps 2.3-2.7) on combination ``i``: values visited by increasing weighted
    support in the new version, each suppressed in the records of classes below k (in either
    view) that hold it. Returns the record cells suppressed."""
    work, cols = ix.work, ix.combinations[i]
    rows_v = work.rows("V")
    moles = rows_v[ix.small(i, rows_v, k)]
    if len(moles) == 0:
        return 0
    counts = work.counts
    entries, by_value = value_visits(work.codes, counts, work.labels, cols, weights, moles,
                                     support_rows=rows_v)
    cells = 0
    for _wsup, pos, _label, code in entries:
        rows = by_value[pos][code]
        sel = rows[ix.small(i, rows, k)]
        if len(sel):
            cells += int(counts[sel].sum())
            ix.suppress(sel, int(cols[pos]), code)
    return cells


def _class_sizes(work: WorkTable, rows: np.ndarray, cols: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Each row's class (suppressed = its own category) and the classes' sizes."""
    cards = [len(work.labels[j]) for j in cols]
    keys = row_keys(work.codes[np.ix_(rows, cols)].astype(np.int64), cards)
    inverse, n = dense_codes(keys)
    return inverse, np.bincount(inverse, weights=work.counts[rows], minlength=n).astype(np.int64)


def _donor_order(work: WorkTable, donors: np.ndarray, cols: np.ndarray, sizes: np.ndarray
                 ) -> np.ndarray:
    """Donors cheapest first (fewest unsuppressed cells), kept records before new ones (their
    suppression reveals nothing and changes only the new version), then the largest classes,
    then the row (a stable key)."""
    cost = (work.codes[np.ix_(donors, cols)] != SUPPRESSED).sum(axis=1)
    return donors[np.lexsort((donors, -sizes, work.kind[donors], cost))]


def grow_fully_suppressed(work: WorkTable, cols: np.ndarray, k: int, view: str
                          ) -> tuple[int, int]:
    """Bring the view's class of records fully suppressed on the combination up to k, taking
    records that may be suppressed (all current ones in the new version, new ones in the
    combined view) from classes that stay at k in both views, then from any class (the next
    pass repairs what that leaves). Returns (records moved, cells suppressed)."""
    rows = work.rows(view)
    inverse, sizes = _class_sizes(work, rows, cols)
    full = (work.codes[np.ix_(rows, cols)] == SUPPRESSED).all(axis=1)
    if not full.any() or sizes[inverse[full][0]] >= k:
        return 0, 0
    need = int(k - sizes[inverse[full][0]])
    may = ~full & ((work.kind[rows] != FIXED) if view == "V" else (work.kind[rows] == FREE))
    surplus = {view: np.maximum(sizes - k, 0)}
    cid = {view: np.full(len(work.counts), -1, dtype=np.int64)}
    cid[view][rows] = inverse
    other = "C" if view == "V" else "V"
    o_rows = work.rows(other)
    o_inverse, o_sizes = _class_sizes(work, o_rows, cols)
    surplus[other] = np.maximum(o_sizes - k, 0)
    cid[other] = np.full(len(work.counts), -1, dtype=np.int64)
    cid[other][o_rows] = o_inverse
    donors = _donor_order(work, rows[may], cols, sizes[inverse[may]])
    taken: dict[int, int] = {}
    for strict in (True, False):
        for r in donors.tolist():
            if need == 0:
                break
            avail = int(work.counts[r]) - taken.get(r, 0)
            if strict:
                for v in (view, other):
                    if cid[v][r] >= 0:
                        avail = min(avail, int(surplus[v][cid[v][r]]))
            t = min(avail, need)
            if t <= 0:
                continue
            for v in (view, other):
                if cid[v][r] >= 0:
                    surplus[v][cid[v][r]] -= t
            taken[r] = taken.get(r, 0) + t
            need -= t
    if not taken:
        return 0, 0
    src = np.array(list(taken), dtype=np.int64)
    amounts = np.array(list(taken.values()), dtype=np.int64)
    cells = int(((work.codes[np.ix_(src, cols)] != SUPPRESSED).sum(axis=1) * amounts).sum())
    moved = work.split(src, amounts)
    work.codes[np.ix_(moved, cols)] = SUPPRESSED
    return int(amounts.sum()), cells


def propagate_current(work: WorkTable, pairs: Sequence[tuple[str, str]]) -> int:
    """Suppression propagation (:func:`dbt_deid.families.propagate`) on the current records
    (the combined view's earlier cells were propagated when they were published)."""
    if not pairs:
        return 0
    rows = work.rows("V")
    table = work.table(rows)
    cells = propagate(table, pairs)
    work.codes[rows] = table.codes
    return cells
