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
whether in its latest state: a record counts only if every release holding the target holds it
in its latest state (its revealed cells, checked against the target's latest stored state),
and a target some release holds in an older state gets no other record counted (its older values
and the other records' own cells per release are not in the pairs: fail closed; the guard cannot
recruit for it, and the gate, which reads them, decides). This never counts more than the gate
does.

Targets (review 11b, L1): every record changed now, and every kept record that some release holds
in an older state at the line's current levels (changed in an earlier version: ``2``; a state
only at other levels, ``3``, is not a change, as in the gate): a later version can delete or
change the records that hid it. A target held in an older state (``2`` or ``3``) always gets the
lower bound 1 here and nothing is recruited for it, because the pairs do not carry, per stored
release, its true values and each other record's own cells there (review 11 final, M1). Not
because no record could join its linked set: a record that fits it in every stored release but
not in the new version could be recruited by suppressing its new cells. The consequence is a
liveness limit, not a hole: a version in which records that hid an old correction change is
refused by the gate until the change is undone or the line is started over (``restart``), even
when suppressing their new cells would make it safe (k = 3, ages v1 records 1-5 21, 6-8 25,
9-13 33; v2 corrects record 1 to 33, published; v3 changes records 2, 3, 4 to 25: refused, gate
(targets, smallest, below k) = (4, 2, 1), although suppressing those three new ages would keep
record 1 linked to 5 records). Recruiting for them needs the gate's ``deid_history`` step's
per-release true values and own cells (``q__w<i>``, ``q__c<i>`` in
``macros/gates/linked_changes_sql.sql``) in the pairs, and the gate's own-cell rule here. The
gate's SQL counts them exactly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from dbt_deid.living.pairs import RefreshInput, Status
from dbt_deid.living.views import WorkTable
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
    ``target``: held in its latest state in every release holding the target (``1`` there),
    and the target held in no release in an older state, at these levels or others (``2`` or
    ``3``: its values there are not in the pairs; else none)."""
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
    levels (``3``) is not a change (review 11 final, L1: the gate's ``deid_restated`` groups
    states by levels)."""
    older = np.append(np.array(["2" in h for h in inp.history_labels], dtype=bool), False)
    return (inp.status[rows_src] == Status.CHANGED) | older[inp.history[rows_src]]


def _history_mask(inp: RefreshInput, target_code: int, rows_src: np.ndarray) -> np.ndarray:
    """Rows (pairs rows ``rows_src``) whose history fits the target's (:func:`_history_fits`);
    a row without history fits no target."""
    target = inp.history_labels[target_code] if target_code >= 0 else None
    fits = np.append(_history_fits(target, inp.history_labels), False)  # -1: no history
    return fits[inp.history[rows_src]]


def linked_counts(work: WorkTable, inp: RefreshInput, cols: Sequence[int]
                  ) -> tuple[np.ndarray, np.ndarray]:
    """The new-version rows of targets (records changed now or in an earlier version:
    :func:`_is_target`) and, for each, the records present before and
    now whose stored history fits its own (:func:`_history_fits`) and whose earlier and new
    cells are consistent with its earlier and current values."""
    rows = work.rows("V")
    status = inp.status[work.src[rows]]
    both = rows[(status == Status.KEPT) | (status == Status.CHANGED)]
    targets = both[_is_target(inp, work.src[both])]
    counts = np.zeros(len(targets), dtype=np.int64)
    if len(targets) == 0:
        return targets, counts
    idx = list(cols)
    pub = np.hstack([inp.revealed[work.src[both]][:, idx], work.codes[both][:, idx]])
    truth = np.hstack([inp.earlier[work.src[targets]][:, idx],
                       inp.current[work.src[targets]][:, idx]])
    cards = [len(work.labels[j]) for j in idx] * 2
    t_hist = inp.history[work.src[targets]]
    for h in np.unique(t_hist).tolist():
        sel = t_hist == h
        ok = _history_mask(inp, int(h), work.src[both])
        if not ok.any():  # none known to fit (an older state): the target itself, a lower bound
            counts[sel] = 1
            continue
        counts[sel] = coded_consistent_counts(
            truth[sel].astype(np.int64), pub[ok].astype(np.int64), cards, work.counts[both][ok])
    return targets, counts


def _consistent(cells: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Rows of ``cells`` consistent with ``target`` (every cell suppressed or equal)."""
    return ((cells == SUPPRESSED) | (cells == target)).all(axis=1)


def guard_changed(work: WorkTable, inp: RefreshInput, combinations: Sequence[Sequence[int]],
                  k: int) -> int:
    """Bring every changed record's linked consistent set up to k on every combination.

    A changed record's own cells do not count here (the recipient knows its values): what
    hides it is other records present before and now whose earlier cells are consistent with
    its earlier values and whose new cells are consistent with its current ones. Such records
    are recruited among those whose history fits its own (:func:`_history_fits`) and whose
    earlier cells are consistent with its earlier values by
    suppressing, in the new version only, their cells that contradict its current values
    (reveals nothing: the combined view keeps their earlier cells), fewest cells first, then by
    row (a stable key). Returns the record cells suppressed (0: nothing more can be done).
    """
    cells = 0
    for cols in combinations:
        idx = list(cols)
        targets, counts = linked_counts(work, inp, cols)
        bad = targets[counts < k]
        if len(bad) == 0:
            continue
        pairs = np.hstack([inp.earlier[work.src[bad]][:, idx], inp.current[work.src[bad]][:, idx],
                           inp.history[work.src[bad]][:, None]])
        uniq, first = np.unique(pairs, axis=0, return_index=True)
        need = k - counts[counts < k][first]
        for (a_b, n) in zip(uniq, need.tolist(), strict=True):
            cells += _recruit(work, inp, idx, a_b[: len(idx)], a_b[len(idx): 2 * len(idx)],
                              int(a_b[-1]), n)
    return cells


def _recruit(work: WorkTable, inp: RefreshInput, idx: list[int], a: np.ndarray, b: np.ndarray,
             history: int, need: int) -> int:
    rows = work.rows("V")
    status = inp.status[work.src[rows]]
    both = rows[(status == Status.KEPT) | (status == Status.CHANGED)]
    late = work.codes[np.ix_(both, idx)]
    fits = (_consistent(inp.revealed[work.src[both]][:, idx], a) & ~_consistent(late, b)
            & _history_mask(inp, history, work.src[both]))
    cand = both[fits]
    if len(cand) == 0:
        return 0
    wrong = (late[fits] != SUPPRESSED) & (late[fits] != b)
    cost = wrong.sum(axis=1)
    order = np.lexsort((cand, cost))
    cum = np.cumsum(work.counts[cand[order]])
    last = int(np.searchsorted(cum, need))  # rows order[: last + 1] cover the need
    take = order[: last + 1]
    amounts = work.counts[cand[take]].copy()
    if last < len(order):
        amounts[-1] -= max(int(cum[last]) - need, 0)
    moved = work.split(cand[take], amounts)
    block = work.codes[np.ix_(moved, idx)]
    block[wrong[take]] = SUPPRESSED
    work.codes[np.ix_(moved, idx)] = block
    return int((wrong[take].sum(axis=1) * amounts).sum())


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
