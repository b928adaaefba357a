"""The combined view counted by person, as the gate counts it (review 19, F1; issue 32).

Recipients keep every version and can link a record's rows across versions (a pass-through
column, the row order), so a record is consistent with a target only when every cell any
version revealed of it is (El Emam et al. 2011's consistency, cell by cell, over everything a
recipient holds). The gate (``macros/gates/combined_persons_sql.sql``) counts each record
once: a record of one state is its row, a target; a record of several states (its true values
changed between versions) is one row whose cells are the union of the cells its versions
revealed, a QI revealed with two different values holding a marker that matches no true
value, and it is a released record only (as a target it is the linked check's:
:mod:`dbt_deid.living.linked`).

On the refresh's work table (:mod:`dbt_deid.living.views`) the person rows are:

* a new record: its FREE row (a target);
* a record kept with one state: its FIXED row (its revealed cells; a target);
* a record changed now: one row, the union of its stored cells and its FREE row's new cells
  (not a target), so suppressing a new cell can make it consistent again;
* a record kept or changed now that some stored release holds in an older state (``2`` in
  its ``deid_history``): one row, the union of its own cells in every stored release (the
  pairs' per-release detail, ``q__own<i>``) and of its new cells (not a target); its older
  states, which the pairs carry as rows without current values (true values ``q__was<i>``,
  cells the union of ``q__own<i>`` over the releases holding them), are taken out of those
  rows so they are not counted twice;
* any other row without current values (a deleted record, or an older state the pairs'
  detail does not describe): its row, a target, as before.

Left as a state: a deleted record whose true values had changed before it was deleted (the
pairs do not link its states: each counts once, as the gate does not, which the gate then
decides), an older state whose detail is a conflict (records of one pairs row held in different
older states) and a record held at other levels (``3``: the gate refuses its states).

:func:`guard_persons` brings every target's count up to k by suppressing, in the new version,
cells of records the refresh may change (records changed now first, then new records) that
contradict the target: seed 000's weights order them (El Emam et al. 2011, step 2.5: the
cheapest weighted cells first), then the number of cells, then the row (a stable key).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from dbt_deid.coded import row_keys
from dbt_deid.living.pairs import CONFLICT, RefreshInput, Status
from dbt_deid.living.views import FIXED, FREE, WorkTable, suppress_in_order
from dbt_deid.patterns import SUPPRESSED
from dbt_deid.verify import CombinationCheck, coded_class_sizes, coded_consistent_counts


@dataclass
class PersonView:
    """One row per person (see the module docstring): cells (codes, -1 suppressed, the
    column's ``marker`` for two values revealed), true values (targets only), counts, whether
    a target, the FREE work row whose new cells the row holds (-1: none) and the cells that
    stay whatever the new version shows (``fixed``: for a FREE row, its stored union)."""

    cells: np.ndarray
    truth: np.ndarray
    counts: np.ndarray
    target: np.ndarray
    free: np.ndarray
    fixed: np.ndarray
    marker: np.ndarray

    def cards(self, cols: Sequence[int]) -> list[int]:
        return [int(self.marker[j]) + 1 for j in cols]


def _union(a: np.ndarray, b: np.ndarray, marker: np.ndarray) -> np.ndarray:
    """Cell by cell: the one value shown (-1 when neither shows one), the marker for two."""
    out = np.where(a == SUPPRESSED, b, a)
    return np.where((a != SUPPRESSED) & (b != SUPPRESSED) & (a != b), marker[None, :], out)


def _multi_state(inp: RefreshInput) -> np.ndarray:
    """Per pairs row: its records are held by some stored release in an older state at the
    line's levels (``2``), and the pairs carry the detail that describes those states (and no
    release at other levels, ``3``)."""
    if inp.own is None or inp.was is None:
        return np.zeros(len(inp.counts), dtype=bool)
    two = np.array(["2" in h and "3" not in h for h in inp.history_labels] + [False])
    return two[inp.history] & (inp.status != Status.GONE) & (inp.status != Status.NEW)


def _stored_union(inp: RefreshInput, rows: np.ndarray, marker: np.ndarray) -> np.ndarray:
    """The union of the cells every stored release revealed of the records of pairs rows
    ``rows`` (their revealed cells, and their own cells in each release for the rows whose
    records have several states: :func:`_multi_state`)."""
    out = inp.revealed[rows].astype(np.int64)
    multi = _multi_state(inp)[rows]
    if multi.any() and inp.own is not None:
        own = inp.own[rows[multi]].astype(np.int64)  # rows x releases x QIs
        own = np.where(own == CONFLICT, marker[None, None, :], own)
        part = out[multi]
        for i in range(own.shape[1]):
            part = _union(part, own[:, i], marker)
        out[multi] = part
    return out


def _older_states(inp: RefreshInput, marker: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The older states of the multi-state records (:func:`_multi_state`) that the pairs'
    detail describes: (true values, cells, records), one row per pairs row and older state."""
    truths, cells, counts = [], [], []
    if inp.was is None or inp.own is None:
        return (np.zeros((0, len(marker)), np.int64),) * 2 + (np.zeros(0, np.int64),)
    for r in np.flatnonzero(_multi_state(inp)).tolist():
        label = inp.history_labels[int(inp.history[r])]
        states: dict[tuple[int, ...], np.ndarray] = {}
        for i, c in enumerate(label):
            if c != "2":
                continue
            was = inp.was[r, i].astype(np.int64)
            own = inp.own[r, i].astype(np.int64)
            if (was < 0).any() or (own == CONFLICT).any():
                continue  # not described: its row stays a state of its own
            key = tuple(was.tolist())
            seen = states.get(key)
            states[key] = own if seen is None else _union(seen[None, :], own[None, :],
                                                          marker)[0]
        for key, own in states.items():
            truths.append(np.array(key, dtype=np.int64))
            cells.append(own)
            counts.append(int(inp.counts[r]))
    if not truths:
        return (np.zeros((0, len(marker)), np.int64),) * 2 + (np.zeros(0, np.int64),)
    return np.vstack(truths), np.vstack(cells), np.array(counts, dtype=np.int64)


def person_view(work: WorkTable, inp: RefreshInput) -> PersonView:
    """The combined view by person on the work table as it stands (module docstring)."""
    marker = np.array([len(lab) for lab in work.labels], dtype=np.int64)
    if inp.was is not None:  # values past the labels (detail only): beyond them too
        marker = np.maximum(marker, inp.was.max(axis=(0, 1)).astype(np.int64) + 1)
    if inp.own is not None:
        marker = np.maximum(marker, inp.own.max(axis=(0, 1)).astype(np.int64) + 1)
    status = inp.status[work.src]
    multi = _multi_state(inp)[work.src]
    codes = work.codes.astype(np.int64)
    truth = work.truth.astype(np.int64)
    # new records and records changed now (their new-version row), kept records and rows
    # without current values (their revealed cells)
    new = np.flatnonzero((work.kind == FREE) & (status == Status.NEW))
    changed = np.flatnonzero((work.kind == FREE) & (status == Status.CHANGED))
    kept = np.flatnonzero((work.kind == FIXED) & (status == Status.KEPT))
    gone = np.flatnonzero((work.kind == FIXED) & (status == Status.GONE))
    stored_changed = _stored_union(inp, work.src[changed], marker)
    stored_kept = _stored_union(inp, work.src[kept], marker)
    gone_counts = work.counts[gone].astype(np.int64).copy()
    o_truth, o_cells, o_counts = _older_states(inp, marker)
    if len(o_counts) and len(gone):  # the older states out of the rows without current values
        cards = [int(m) + 1 for m in marker] * 2
        g_src = work.src[gone]
        g_key = row_keys(np.hstack([inp.earlier[g_src], inp.revealed[g_src]]).astype(np.int64),
                         cards)
        o_key = row_keys(np.hstack([o_truth, o_cells]), cards)
        where = {int(key): n for n, key in enumerate(g_key.tolist())}
        for key, n in zip(o_key.tolist(), o_counts.tolist(), strict=True):
            at = where.get(int(key))
            if at is not None:
                gone_counts[at] -= min(n, int(gone_counts[at]))
    parts = [
        (codes[new], truth[new], work.counts[new], np.ones(len(new), bool), new,
         np.full((len(new), codes.shape[1]), SUPPRESSED, np.int64)),
        (_union(stored_changed, codes[changed], marker), truth[changed], work.counts[changed],
         np.zeros(len(changed), bool), changed, stored_changed),
        (stored_kept, truth[kept], work.counts[kept], ~multi[kept],
         np.full(len(kept), -1, np.int64), stored_kept),
        (codes[gone], truth[gone], gone_counts, np.ones(len(gone), bool),
         np.full(len(gone), -1, np.int64), codes[gone]),
    ]
    cells, truths, counts, target, free, fixed = (np.concatenate([p[i] for p in parts])
                                                  for i in range(6))
    keep = counts > 0
    return PersonView(cells[keep], truths[keep], counts[keep].astype(np.int64), target[keep],
                      free[keep].astype(np.int64), fixed[keep], marker)


def person_counts(view: PersonView, cols: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """(the targets' positions in ``view``, each one's consistent count by person on the
    columns ``cols``)."""
    idx = list(cols)
    at = np.flatnonzero(view.target)
    if len(at) == 0:
        return at, np.zeros(0, dtype=np.int64)
    return at, coded_consistent_counts(view.truth[at][:, idx], view.cells[:, idx],
                                       view.cards(idx), view.counts)


def person_checks(work: WorkTable, inp: RefreshInput, combinations: Sequence[Sequence[str]],
                  k: int) -> list[CombinationCheck]:
    """The combined view's figures by person, per combination: the smallest class holding a
    target (a suppressed cell its own category; every person row counts in it), the smallest
    consistent set of a target and the target records below k (what the gate decides on)."""
    view = person_view(work, inp)
    out = []
    for b in combinations:
        idx = [work.columns.index(c) for c in b]
        at, counts = person_counts(view, idx)
        cards = view.cards(idx)
        sizes = coded_class_sizes(view.cells[:, idx], cards, view.counts)[at]
        small = sizes < k
        n = view.counts[at]
        out.append(CombinationCheck(
            combination=tuple(b), k=k,
            smallest_class=int(sizes.min()) if len(sizes) else 0,
            small_classes=int(len(np.unique(row_keys(view.cells[at][small][:, idx], cards))))
            if small.any() else 0,
            records_in_small_classes=int(n[small].sum()),
            min_consistent=int(counts.min()) if len(counts) else 0,
            records_below_k_exact=int(n[counts < k].sum())))
    return out


def guard_persons(work: WorkTable, inp: RefreshInput, combinations: Sequence[Sequence[int]],
                  k: int, weights: Mapping[int, float]) -> int:
    """Bring every target's consistent count by person up to k on every combination.

    For a target below k, records the refresh may change whose stored cells are consistent
    with it (a record changed now: the union of every stored version's cells; a new record:
    nothing stored) but whose new cells contradict it are recruited: their contradicting new
    cells are suppressed in the new version (a cell suppressed before stays suppressed: only
    shown cells are touched). Records changed now come first, then the cheapest by the
    weighted cells suppressed (seed 000's weights, default 1), then by cells, then by row.
    Returns the record cells suppressed (0: nothing more can be done)."""
    cells = 0
    if not ((inp.status == Status.CHANGED).any() or _multi_state(inp).any()):
        return 0  # every record of one state: the view by person is the view by state
    view: PersonView | None = None  # read again only after a cell was suppressed
    for cols in combinations:
        idx = list(cols)
        w = np.array([float(weights.get(j, 1.0)) for j in idx])
        while True:  # sweeps: the view read once, each target below k recruited for
            view = view or person_view(work, inp)
            at, counts = person_counts(view, idx)
            low = counts < k
            if not low.any():
                break
            truths, first = np.unique(view.truth[at[low]][:, idx], axis=0, return_index=True)
            need = k - counts[low][first]
            got = 0
            for t, n in zip(truths, need.tolist(), strict=True):  # by true values (stable)
                got += _recruit(work, view, idx, t, int(n), w)
            if got == 0:  # no record can be recruited: the checks report it
                break
            view = None
            cells += got
    return cells


def _recruit(work: WorkTable, view: PersonView, idx: list[int], t: np.ndarray, need: int,
             w: np.ndarray) -> int:
    """Suppress the new cells that contradict the target's true values ``t`` (on ``idx``) of
    the cheapest recruitable records until ``need`` more are consistent with it."""
    free = view.free >= 0
    shown = view.cells[:, idx]
    consistent = ((shown == SUPPRESSED) | (shown == t[None, :])).all(axis=1)
    fixed = view.fixed[:, idx]
    fits = ((fixed == SUPPRESSED) | (fixed == t[None, :])).all(axis=1)
    cand = np.flatnonzero(free & fits & ~consistent)
    if len(cand) == 0:
        return 0
    rows = view.free[cand]
    new = work.codes[np.ix_(rows, idx)]
    wrong = (new != SUPPRESSED) & (new != t[None, :])
    changed_first = view.target[cand].astype(np.int64)  # new records (targets) after
    cost = wrong.astype(float) @ w
    order = np.lexsort((rows, wrong.sum(axis=1), cost, changed_first))
    return suppress_in_order(work, rows, order, need, idx, wrong)
