"""A refresh: seed 000's combinations suppression applied to what changed, the rest held fixed.

El Emam et al. (2011), "Combinations Suppression Algorithm" (Figure 4), run on the work table of
:mod:`dbt_deid.living.views` so that the new version alone and the combined view of every
version are both k-anonymous on every combination:

* Phase 1 (steps 1.1-1.4): a value whose support in the new version is below k is suppressed in
  every current record (it is in a class smaller than k wherever it appears).
* Phase 2 (steps 2.1-2.7): combinations are ordered by their moles M_b (classes smaller than k
  in the new version, plus classes of the combined view smaller than k that hold a record this
  refresh may suppress), largest first; within one, values are visited by increasing weighted
  support wsup = sup x w (support in the new version) and suppressed in the records of small
  classes. A kept record's cell may be suppressed for the new version (it was revealed before:
  the combined view keeps it); a new record's cell counts in both views. Earlier records' cells
  in the combined view are never touched, and no cell suppressed before is revealed.
* As in :mod:`dbt_deid.suppression`, a suppressed cell is its own category, the fully
  suppressed class of each view is grown to k (records taken cheapest first, kept records
  before new ones, from classes that stay at k), and the passes repeat over all combinations
  until neither view has a class smaller than k; then changed records are guarded against a
  recipient linking versions (:mod:`dbt_deid.living.linked`), and the combined view is
  counted by person, as the gate counts it (:mod:`dbt_deid.living.persons`; review 19, F1: a
  record changed between versions is one record with the union of its cells), new cells of
  changed and new records suppressed where a target is below k; the passes repeat after
  either guard suppresses a cell. ``combined_checks`` are by person.

When no pass can make progress (the combined view's fully suppressed class needs more new
records than there are, or the earlier combined view was already unsafe), the result carries
the figures and :meth:`RefreshResult.refusals` says what failed; nothing is published.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dbt_deid.errors import ConfigError
from dbt_deid.families import Family, check_total_order_codes
from dbt_deid.living.algorithm import (
    Indexes,
    grow_fully_suppressed,
    phase1,
    phase2_combination,
    propagate_current,
)
from dbt_deid.living.linked import LinkedCheck, guard_changed, linked_checks
from dbt_deid.living.pairs import HISTORY, RefreshInput, Status, pair_columns, read_pairs
from dbt_deid.living.persons import guard_persons, person_checks
from dbt_deid.living.views import FREE, KEPT_V, WorkTable
from dbt_deid.patterns import COUNT_COLUMN, SUPPRESSED, PatternTable
from dbt_deid.progress import Logger, get_logger
from dbt_deid.suppression import (
    MAX_PASSES,
    SuppressionResult,
    SuppressionStats,
    carried_columns,
)
from dbt_deid.verify import CombinationCheck


@dataclass
class RefreshStats(SuppressionStats):
    """:class:`SuppressionStats` (record cells per step), plus the cells the changed-record
    guard suppressed, whether the run stalled and its whole time (reading the pairs included,
    the final checks not)."""

    linked_cells: int = 0
    person_cells: int = 0
    stalled: bool = False
    seconds: float = 0.0

    @property
    def cells(self) -> int:
        return super().cells + self.linked_cells + self.person_cells


@dataclass
class RefreshResult:
    """The new version (its suppression map), the figures of both views and of the changed
    records' linked check."""

    work: WorkTable
    pairs: RefreshInput
    k: int
    combinations: list[tuple[str, ...]]
    verify_combinations: list[tuple[str, ...]]
    stats: RefreshStats
    version_checks: list[CombinationCheck]
    combined_checks: list[CombinationCheck]
    linked: list[LinkedCheck]
    max_suppression: float | None = None

    def _rows(self, status: Status, kind: int) -> np.ndarray:
        w = self.work
        return np.flatnonzero((w.kind == kind) & (self.pairs.status[w.src] == status))

    def records(self, status: Status) -> int:
        """Records of the pairs with this status."""
        return self.pairs.records(status)

    @property
    def new_record_cells(self) -> int:
        """Cells suppressed among the new records (changed records' new state not included)."""
        return self.work.suppressed_cells(self._rows(Status.NEW, FREE))

    @property
    def changed_record_cells(self) -> int:
        """Cells suppressed in the new state of changed records."""
        return self.work.suppressed_cells(self._rows(Status.CHANGED, FREE))

    @property
    def kept_cells_newly_suppressed(self) -> int:
        """Cells of kept records suppressed in the new version but not in the previous one."""
        rows = self._rows(Status.KEPT, KEPT_V)
        before = self.pairs.published[self.work.src[rows]] == SUPPRESSED
        after = self.work.codes[rows] == SUPPRESSED
        return int(((after & ~before).sum(axis=1) * self.work.counts[rows]).sum())

    @property
    def kept_records_newly_suppressed(self) -> int:
        """Kept records whose row differs from the previous version's (only ever by cells
        suppressed for the new version alone, when deletions or changes shrank its class)."""
        rows = self._rows(Status.KEPT, KEPT_V)
        before = self.pairs.published[self.work.src[rows]] == SUPPRESSED
        after = self.work.codes[rows] == SUPPRESSED
        return int(self.work.counts[rows][(after & ~before).any(axis=1)].sum())

    def suppressed_records(self) -> tuple[int, int]:
        """(records of the new version with a suppressed cell, records of the new version):
        MaxSup's figure (El Emam et al. 2011 "Missingness"; seed 001's MaxSup)."""
        rows = self.work.rows("V")
        hit = (self.work.codes[rows] == SUPPRESSED).any(axis=1)
        return int(self.work.counts[rows][hit].sum()), int(self.work.counts[rows].sum())

    def refusals(self) -> list[str]:
        """Why this version must not be published (empty: it may be). Counts and combination
        names only, never a value."""
        out = []
        total = self.suppressed_records()[1]
        if total < self.k:
            out.append(f"the new version has {total} record(s), fewer than k = {self.k}")
        for view, checks in (("new version", self.version_checks),
                             ("combined view", self.combined_checks)):
            for c in checks:
                # the combined view by person decides on its consistent sets, as the gate
                # does (a changed record's union row can make a class smaller than k that
                # its targets' consistent sets are not)
                if not (c.ok if view == "new version" else c.records_below_k_exact == 0):
                    out.append(
                        f"{view}: {'+'.join(c.combination)}: smallest class {c.smallest_class},"
                        f" {c.records_below_k_exact} record(s) consistent with fewer than"
                        f" k = {self.k} (smallest {c.min_consistent})")
        for c in self.linked:
            if c.records_below_k:
                out.append(
                    f"changed records linked across versions: {'+'.join(c.combination)}:"
                    f" {c.records_below_k} of {c.changed_records} consistent with fewer than"
                    f" k = {self.k} (smallest {c.min_consistent}); start the line over (the"
                    " audited setting) or correct fewer records per refresh (a record the"
                    " pairs cannot count over every stored version, one held at other levels"
                    " or without the per-release detail, counts 1 here, a lower bound: the"
                    " gate's linked check counts it and decides)")
        hit, total = self.suppressed_records()
        if self.max_suppression is not None and total and hit / total > self.max_suppression:
            out.append(f"MaxSup {100 * hit / total:.1f}% > {100 * self.max_suppression:.1f}%"
                       f" ({hit} of {total} records have a suppressed quasi-identifier): raise"
                       " max_suppression or generalize more (a change of level starts the line"
                       " over)")
        if out and self.stats.stalled:
            out.append("no more cell of this refresh's records could be suppressed: the earlier"
                       " versions alone leave the combined view below k")
        return out

    @property
    def ok(self) -> bool:
        return not self.refusals()

    def _as_suppression_result(self) -> SuppressionResult:
        w, p = self.work, self.pairs
        rows = w.rows("V")
        table = PatternTable(list(w.columns), w.codes[rows], w.counts[rows], list(w.labels),
                             p.origin[w.src[rows]])
        coded = np.hstack([p.current, p.earlier, p.published, p.revealed]).astype(np.int32)
        names, labels = pair_columns(w.columns), list(w.labels) * 4
        if p.has_history:  # the map is keyed by the record's history too (living.pairs)
            order = np.argsort(np.array(p.history_labels, dtype=object), kind="stable")
            rank = np.empty(len(order), dtype=np.int32)
            rank[order] = np.arange(len(order), dtype=np.int32)
            hist = np.append(rank, np.int32(SUPPRESSED))[p.history]  # -1 (null): SUPPRESSED
            coded = np.hstack([coded, hist.astype(np.int32)[:, None]])
            names = [*names, HISTORY]
            labels = [*labels, np.array([p.history_labels[i] for i in order], dtype=object)]
        source = PatternTable(names, coded, p.counts, labels, p.origin)
        return SuppressionResult(table, source, self.k, self.combinations, SuppressionStats(),
                                 self.verify_combinations)

    def suppression_map(self, *, only_suppressed: bool = True) -> pd.DataFrame:
        """The new version's map, keyed by the pairs' columns (each QI, then its earlier,
        published and revealed columns; null where the pairs row has null), with ``n``,
        ``rank_from``/``rank_to`` and ``<qi>__suppressed`` flags as
        :meth:`SuppressionResult.suppression_map`. Rows of gone records are not in it."""
        return self._as_suppression_result().suppression_map(only_suppressed=only_suppressed)

    def published(self) -> pd.DataFrame:
        """The new version's released patterns (None = suppressed) with counts."""
        return self._as_suppression_result().published()


def _check_settings(k: int, combos: list[tuple[str, ...]], weights: Mapping[str, float],
                    columns: Sequence[str]) -> None:
    if not isinstance(k, int) or isinstance(k, bool) or k < 2:
        raise ConfigError(f"k must be an integer >= 2, got {k!r}")
    if not combos or any(len(c) == 0 for c in combos):
        raise ConfigError("combinations must be a non-empty list of non-empty column lists")
    for col, w in weights.items():
        if col not in columns:
            raise ConfigError(f"weight given for unknown column {col!r}")
        if not isinstance(w, (int, float)) or not 0 <= w <= 1:
            raise ConfigError(f"weight of {col!r} must be in [0, 1], got {w!r}")


def refresh(
    pairs: pd.DataFrame,
    k: int,
    combinations: Sequence[Sequence[str]],
    weights: Mapping[str, float] | None = None,
    *,
    count_column: str | None = COUNT_COLUMN,
    verify_combinations: Sequence[Sequence[str]] = (),
    propagation: Sequence[tuple[str, str]] = (),
    columns: Sequence[str] = (),
    max_suppression: float | None = None,
    logger: Logger | None = None,
    families: Sequence[Family] = (),
) -> RefreshResult:
    """Compute the next version of a release line from the pairs frame
    (:mod:`dbt_deid.living.pairs`): the arguments of :func:`dbt_deid.suppression.run_suppression`
    (combinations algorithm), plus ``max_suppression`` (MaxSup, for :meth:`RefreshResult.
    refusals`). The result is checked on every verified combination in both views (class sizes
    and exact consistent sets) and on the changed records' linked view; inspect
    :meth:`RefreshResult.refusals` before publishing. ``families`` (the release's hierarchical
    QIs): each ``generalizes`` link must be a total order on the current records, as a full
    suppression requires of its pattern table (a DataError otherwise, nothing computed; review
    r11b, G1: a refresh published 40 records whose coarse level no finer value maps to)."""
    log = logger or get_logger()
    t0 = time.perf_counter()
    combos = [tuple(c) for c in combinations]
    weights = dict(weights or {})
    qis = carried_columns(combos, columns, propagation, verify_combinations)
    _check_settings(k, combos, weights, qis)
    inp = read_pairs(pairs, qis, count_column)
    current = inp.status != Status.GONE
    check_total_order_codes(
        {c: inp.current[current, j] for j, c in enumerate(inp.columns)}, inp.counts[current],
        families, where=" on the refresh's current records")
    work = WorkTable.build(inp)
    stats = RefreshStats()
    used = list(dict.fromkeys(c for b in combos for c in b))
    col_idx = {c: work.columns.index(c) for c in qis}
    checks = list(dict.fromkeys([tuple(b) for b in verify_combinations] or combos))
    log.info(f"dbt_deid refresh: {inp.records(Status.KEPT)} kept, {inp.records(Status.NEW)} new,"
             f" {inp.records(Status.CHANGED)} changed, {inp.records(Status.GONE)} gone record(s)"
             f" ({len(inp.counts)} pairs, k = {k})")
    t1 = time.perf_counter()
    stats.phase1_cells = phase1(work, [col_idx[c] for c in used], k)
    stats.phase1_seconds = time.perf_counter() - t1
    t1 = time.perf_counter()
    combo_cols = [np.array([col_idx[c] for c in b]) for b in combos]
    ix: Indexes | None = None
    suppressed_before = -1
    while True:
        if propagate_current(work, propagation):
            ix = None
        ix = ix or Indexes(work, combo_cols, k)
        moles = [(ix.moles(i, k), i, b) for i, b in enumerate(combos)]
        todo = sorted((m for m in moles if m[0] > 0), key=lambda m: (-m[0], m[1]))
        if not todo:
            linked = guard_changed(work, inp, [[col_idx[c] for c in b] for b in checks], k)
            stats.linked_cells += linked
            if linked:
                ix = None
                continue
            persons = guard_persons(work, inp, [[col_idx[c] for c in b] for b in checks], k,
                                    {col_idx[c]: float(w) for c, w in weights.items()})
            stats.person_cells += persons
            if persons:
                ix = None
                continue
            break
        now = work.suppressed_cells(work.rows("V"))
        if now == suppressed_before or stats.passes >= MAX_PASSES:
            stats.stalled = True  # nothing this refresh may suppress makes progress
            break
        suppressed_before = now
        stats.passes += 1
        for n_moles, i, b in todo:
            if stats.passes == 1:
                stats.combination_order.append(b)
            w = np.array([float(weights.get(c, 1.0)) for c in b])
            cells = phase2_combination(ix, i, w, k)
            moved, gcells = 0, 0
            if ix.needs_growth(i, k):
                for view in ("V", "C"):
                    m, g = grow_fully_suppressed(work, combo_cols[i], k, view)
                    moved, gcells = moved + m, gcells + g
                ix = Indexes(work, combo_cols, k)
            stats.phase2_cells += cells
            stats.growth_records += moved
            stats.growth_cells += gcells
            log.info(f"dbt_deid refresh: pass {stats.passes}, {'+'.join(b)}: {n_moles} moles,"
                     f" {cells} cells suppressed, {moved} records fully suppressed;"
                     f" {time.perf_counter() - t0:.1f} s")
    stats.seconds = time.perf_counter() - t0
    stats.phase2_seconds = time.perf_counter() - t1
    return RefreshResult(
        work, inp, k, combos, checks, stats, work.checks("V", checks, k),
        person_checks(work, inp, checks, k), linked_checks(work, inp, checks, k), max_suppression,
    )
