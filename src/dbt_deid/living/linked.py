"""The guard for changed records against a recipient who links versions.

A changed record is, in the combined view, two records (``docs/living-release.md``: its earlier
state stays as a record of its own, its current values are a new record). A recipient who can
link the two rows (pass-through columns, a stable row order) and knows the target's earlier
values ``a`` and current values ``b`` looks for records whose earlier cells are consistent with
``a`` and whose new-version cells are consistent with ``b``. This module counts them, with the
exact consistent-set count (El Emam et al. 2011, "Equivalence Classes"; a suppressed cell is
consistent with anything) on the combination doubled: each QI's earlier revealed cell and its
new-version cell, against the target's earlier and current true values. Only records present
both before and now are candidates (kept records and other changed ones): a recipient who knows
the target was published before rules out new records, and one who knows it is current rules
out deleted ones, so the count is a lower bound on what the recipient is left with.

Every version, not only the latest (review 10 final, H1): a recipient holds every stored release,
so a record counts only if it is consistent with the target in every stored release holding
the target (the rule of the gate's SQL twin, ``macros/gates/linked_changes_sql.sql``). The pairs'
history (:data:`dbt_deid.living.pairs.HISTORY`) tells which releases hold each record and
whether in its latest state; for a target no release holds in an older state, a record counts
only if every release holding the target holds it in its latest state (its revealed cells,
checked against the target's latest stored state). This never counts more than the gate does.

Targets (review 11b, L1): every record changed now, and every kept record that some release holds
in an older state at the line's current levels (changed in an earlier version: ``2``; a state
only at other levels, ``3``, is no target of this guard: the gate compares it with the current
state (at its own level when it is the finer, the current original value mapped there; else at the
coarser) and counts the record as a target when they differ, review 12b H1, review 12 final L1,
so the guard recruits
nothing for it and the gate decides): a later version can delete or
change the records that hid it. For a target held in an older state the pairs carry, per stored
release, its true values there and each record's own cells there (the gate's ``deid_history``
step's ``q__w<i>``, ``q__c<i>``; :func:`dbt_deid.living.pairs.history_detail_columns`; review 11
final, M1), and the guard applies the gate's rule (:func:`_linked_matrices`): a target kept now
is counted on each record's own cells in every release holding it, so the guard can recruit
records that fit it in every stored release by suppressing their new cells (before, it counted
such a target 1 and recruited nothing, so a version in which the records that hid an old
correction changed was refused by the gate until undone or ``restart``: the example of
``docs/living-release.md``, k = 3, v1 ages records 1-5 21, 6-8 25, 9-13 33, v2 corrects record 1
to 33, v3 changes records 2, 3, 4 to 25, is now published with record 1 linked to k records). A
target still counts 1, a lower bound, and the gate decides, when a release at other levels holds
it (``3``), when the pairs come without the detail, or when the records of its pairs row were
held in different older states.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from dbt_deid.living.pairs import CONFLICT, RefreshInput, Status
from dbt_deid.living.views import WorkTable, suppress_in_order
from dbt_deid.patterns import SUPPRESSED
from dbt_deid.verify import coded_consistent_counts


@dataclass(frozen=True)
class LinkedCheck:
    """Changed records on one combination: how many, the smallest linked consistent set, and
    the records consistent with fewer than k linked records."""

    combination: tuple[str, ...]
    changed_records: int
    min_consistent: int | None
    records_below_k: int


def _history_fits(target: str | None, labels: Sequence[str]) -> np.ndarray:
    """Per history label, whether a record with it may count for a target with history
    ``target`` on the latest-state rule: held in its latest state in every release holding the
    target (``1`` there), and the target held in no release in an older state, at these levels
    or others (``2`` or ``3``: those targets are counted by :func:`_linked_matrices`, or not at
    all)."""
    if target is None or "2" in target or "3" in target:
        return np.zeros(len(labels), dtype=bool)
    need = [i for i, c in enumerate(target) if c == "1"]
    return np.array([len(h) == len(target) and all(h[i] == "1" for i in need)
                     for h in labels], dtype=bool)


def _is_target(inp: RefreshInput, rows_src: np.ndarray) -> np.ndarray:
    """Rows (pairs rows ``rows_src``) of records with two or more states in the line: changed
    now, or held by some stored release in an older state (a ``2`` in their history: changed in
    an earlier version; review 11b, L1: a later version can delete or change the records that
    hid it, so it is counted again in every version). A state held only by releases at other
    levels (``3``) is no target here (review 11 final, L1); the gate's ``deid_restated``
    compares it (at the finer level with the candidate, review 12 final L1; else at the coarser)
    and may count it (review 12b, H1): the guard then recruits
    nothing and the gate decides."""
    older = np.append(np.array(["2" in h for h in inp.history_labels], dtype=bool), False)
    return (inp.status[rows_src] == Status.CHANGED) | older[inp.history[rows_src]]


def _history_mask(inp: RefreshInput, target_code: int, rows_src: np.ndarray) -> np.ndarray:
    """Rows (pairs rows ``rows_src``) whose history fits the target's (:func:`_history_fits`);
    a row without history fits no target."""
    target = inp.history_labels[target_code] if target_code >= 0 else None
    fits = np.append(_history_fits(target, inp.history_labels), False)  # -1: no history
    return fits[inp.history[rows_src]]


def _chars(inp: RefreshInput, rows_src: np.ndarray) -> np.ndarray:
    """Each row's history as a character matrix (rows x releases; a row without history: all
    ``0``)."""
    width = max((len(h) for h in inp.history_labels), default=0)
    table = np.array([list(h) if len(h) == width else ["0"] * width
                      for h in inp.history_labels] + [["0"] * width], dtype="<U1")
    return table.reshape(len(inp.history_labels) + 1, width)[inp.history[rows_src]]


def _older_state(inp: RefreshInput, target_code: int) -> bool:
    """Whether the history ``target_code`` holds the record in an older state somewhere."""
    return target_code >= 0 and "2" in inp.history_labels[target_code]


def _linked_matrices(work: WorkTable, inp: RefreshInput, both: np.ndarray,
                     targets: np.ndarray, idx: list[int]
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[int]] | None:
    """The gate's rule (``macros/gates/linked_changes_sql.sql``) as a consistent-set count, for
    targets (work rows ``targets``) that share one history and one status: (the rows of
    ``both`` that may count, their cells, the targets' true values, the code cardinalities).
    A record counts for a target when it may count and each of its cells is suppressed or
    equal to the target's value in the same column. None when the rule cannot be read from
    the pairs (the guard then counts the target 1: a lower bound).

    * Held in an older state nowhere (history without ``2``): the latest-state rule of review
      10 final, H1 (:func:`_history_fits`): the revealed cells against the target's earlier
      values, the new cells against its current ones.
    * Held by some release in an older state (``2``; review 11 final, M1), with the pairs'
      per-release detail (:mod:`dbt_deid.living.pairs`): in every stored release holding the
      target, the record is held too and fits the target's true values there (``q__was<i>``, or
      its earlier values where that release holds its latest state): a target kept now on the
      record's own cells there (``q__own<i>``), one changed now on the cells revealed of the
      record's latest state, which every such release must then hold (and which must fit the
      target's latest stored state), never more than the gate (its cells there are those
      cells or suppressed ones). A row whose records differ in an own cell
      (:data:`~dbt_deid.living.pairs.CONFLICT`) fits no value. Without the detail, with a
      ``3`` (a release at other levels) or with records of the target's row held in different
      older states: None.
    """
    src = work.src[targets[0]]
    code = int(inp.history[src])
    label = inp.history_labels[code] if code >= 0 else None
    moved = inp.status[src] == Status.CHANGED
    revealed = inp.revealed[work.src[both]][:, idx]
    new = work.codes[both][:, idx]
    cards = [len(work.labels[j]) for j in idx]
    if label is None or not _older_state(inp, code):
        ok = _history_mask(inp, code, work.src[both])
        truth = np.hstack([inp.earlier[work.src[targets]][:, idx],
                           inp.current[work.src[targets]][:, idx]])
        return ok, np.hstack([revealed, new]), truth, cards * 2
    if "3" in label or inp.was is None or inp.own is None:
        return None
    held = [i for i, c in enumerate(label) if c in "12"]
    chars = _chars(inp, work.src[both])
    t_src = work.src[targets]
    pub, truth, width = [], [], []
    ext = [max(len(work.labels[j]), int(inp.was[:, :, j].max(initial=-1)) + 1,
               int(inp.own[:, :, j].max(initial=-1)) + 1) for j in idx]
    for i in held:
        if label[i] == "1":
            was = inp.earlier[t_src][:, idx]
        else:
            was = inp.was[t_src, i][:, idx]
            if (was < 0).any():  # not read (null) or the row's records differ: not counted
                return None
        if moved and label[i] == "1":
            continue  # the latest-state columns below already ask it
        truth.append(was)
        width += ext
        if moved:
            pub.append(revealed)
        else:
            own = inp.own[work.src[both], i][:, idx]
            pub.append(np.where(own == CONFLICT, np.array(ext)[None, :], own))
    if moved:
        ok = (chars[:, held] == "1").all(axis=1)
        pub.append(revealed)
        truth.append(inp.earlier[t_src][:, idx])
        width += ext
    else:
        ok = np.isin(chars[:, held], ["1", "2"]).all(axis=1)
    pub.append(new)
    truth.append(inp.current[t_src][:, idx])
    width += ext
    return ok, np.hstack(pub), np.hstack(truth), [c + 1 for c in width]


def _groups(work: WorkTable, inp: RefreshInput, targets: np.ndarray) -> list[np.ndarray]:
    """Positions in ``targets`` grouped by history and status (one :func:`_linked_matrices`
    call each)."""
    src = work.src[targets]
    key = inp.history[src] * 2 + (inp.status[src] == Status.CHANGED)
    return [np.flatnonzero(key == v) for v in np.unique(key)]


def linked_counts(work: WorkTable, inp: RefreshInput, cols: Sequence[int]
                  ) -> tuple[np.ndarray, np.ndarray]:
    """The new-version rows of targets (records changed now or in an earlier version:
    :func:`_is_target`) and, for each, the records present before and now that are
    consistent with it across the stored releases and the new version
    (:func:`_linked_matrices`; 1 where that rule cannot be read: a lower bound)."""
    rows = work.rows("V")
    status = inp.status[work.src[rows]]
    both = rows[(status == Status.KEPT) | (status == Status.CHANGED)]
    targets = both[_is_target(inp, work.src[both])]
    counts = np.zeros(len(targets), dtype=np.int64)
    idx = list(cols)
    for sel in _groups(work, inp, targets):
        got = _linked_matrices(work, inp, both, targets[sel], idx)
        if got is None or not got[0].any():  # none known to fit: the target itself, a bound
            counts[sel] = 1
            continue
        ok, pub, truth, cards = got
        counts[sel] = coded_consistent_counts(truth.astype(np.int64), pub[ok].astype(np.int64),
                                              cards, work.counts[both][ok])
    return targets, counts


def _consistent(cells: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Rows of ``cells`` consistent with ``target`` (every cell suppressed or equal)."""
    return ((cells == SUPPRESSED) | (cells == target)).all(axis=1)


def guard_changed(work: WorkTable, inp: RefreshInput, combinations: Sequence[Sequence[int]],
                  k: int) -> int:
    """Bring every target's linked consistent set up to k on every combination.

    A target's own cells do not count here (the recipient knows its values): what hides it is
    other records present before and now that are consistent with it in every stored release
    holding it and in the new version (:func:`_linked_matrices`). Such records are recruited
    among those consistent with it in the stored releases by suppressing, in the new version
    only, their cells that contradict its current values (reveals nothing: the combined view
    keeps their earlier cells), fewest cells first, then by row (a stable key). Returns the
    record cells suppressed (0: nothing more can be done).
    """
    cells = 0
    for cols in combinations:
        idx = list(cols)
        targets, counts = linked_counts(work, inp, cols)
        bad = targets[counts < k]
        if len(bad) == 0:
            continue
        src = work.src[bad]
        detail = ([] if inp.was is None else [inp.was[src][:, :, idx].reshape(len(bad), -1)])
        pairs = np.hstack([inp.earlier[src][:, idx], inp.current[src][:, idx],
                           inp.history[src][:, None], inp.status[src][:, None], *detail])
        _uniq, first = np.unique(pairs, axis=0, return_index=True)
        need = k - counts[counts < k][first]
        for row, n in zip(bad[first].tolist(), need.tolist(), strict=True):
            cells += _recruit(work, inp, idx, row, n)
    return cells


def _recruit(work: WorkTable, inp: RefreshInput, idx: list[int], target: int, need: int
             ) -> int:
    """Suppress, in the new version, the cells of records that fit the target (work row
    ``target``) in every stored release (:func:`_linked_matrices`) but contradict its current
    values, until ``need`` more records are consistent with it."""
    rows = work.rows("V")
    status = inp.status[work.src[rows]]
    both = rows[(status == Status.KEPT) | (status == Status.CHANGED)]
    got = _linked_matrices(work, inp, both, np.array([target]), idx)
    if got is None:
        return 0
    ok, pub, truth, _cards = got
    q = len(idx)
    stored = ((pub[:, :-q] == SUPPRESSED) | (pub[:, :-q] == truth[0, :-q])).all(axis=1)
    late = work.codes[np.ix_(both, idx)]
    b = truth[0, -q:]
    fits = ok & stored & ~_consistent(late, b)
    cand = both[fits]
    if len(cand) == 0:
        return 0
    wrong = (late[fits] != SUPPRESSED) & (late[fits] != b)
    cost = wrong.sum(axis=1)
    order = np.lexsort((cand, cost))
    return suppress_in_order(work, cand, order, need, idx, wrong)


def linked_checks(work: WorkTable, inp: RefreshInput, combinations: Sequence[Sequence[str]],
                  k: int) -> list[LinkedCheck]:
    """:class:`LinkedCheck` per combination."""
    out = []
    for b in combinations:
        targets, counts = linked_counts(work, inp, [work.columns.index(c) for c in b])
        n = work.counts[targets]
        out.append(LinkedCheck(tuple(b), int(n.sum()),
                               int(counts.min()) if len(counts) else None,
                               int(n[counts < k].sum())))
    return out
