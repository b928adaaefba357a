"""The two views a refresh must keep safe, on one integer-coded work table.

* The **new version** (V): every current record, kept records starting from their previous
  cells, new records (and the new state of changed ones) from their values.
* The **combined view** (C): every record state ever published, each with the finest cell any
  version revealed (the brief's guarantee: recipients keep every version). A kept record's
  combined cells are its earlier revealed ones whatever the new version does (a cell the new
  version suppresses was revealed before); states no longer current (deleted records, the
  earlier state of a changed record) keep theirs; new records bring the new version's cells.
  Phase 2 works on this view by state; the refresh then counts it by person
  (:mod:`dbt_deid.living.persons`), as the gate does.

Rows of the work table: ``KEPT_V`` (a kept record in V, suppressible), ``FREE`` (a new record
or the new state of a changed one: in V and C with the same cells, suppressible) and ``FIXED``
(a kept record's or a gone state's revealed cells in C, never changed). Each row keeps the
pairs row it came from (``src``) and the true values it is checked against.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from dbt_deid.living.pairs import RefreshInput, Status
from dbt_deid.patterns import SUPPRESSED, PatternTable
from dbt_deid.verify import CombinationCheck, check_coded

KEPT_V, FREE, FIXED = 0, 1, 2


@dataclass
class WorkTable:
    """Cells (``codes``, -1 = suppressed), true values, counts, kinds and source rows."""

    columns: list[str]
    labels: list[np.ndarray]
    codes: np.ndarray
    truth: np.ndarray
    counts: np.ndarray
    kind: np.ndarray
    src: np.ndarray

    @classmethod
    def build(cls, inp: RefreshInput) -> WorkTable:
        """Kept records give a KEPT_V row (previous cells) and a FIXED row (revealed cells);
        new records and the new state of changed ones a FREE row (their values); gone states
        and the earlier state of changed ones a FIXED row (revealed cells, earlier truth)."""
        st = inp.status
        kept = np.flatnonzero(st == Status.KEPT)
        free = np.flatnonzero((st == Status.NEW) | (st == Status.CHANGED))
        gone = np.flatnonzero((st == Status.GONE) | (st == Status.CHANGED))
        parts = [
            (kept, KEPT_V, inp.published, inp.current),
            (free, FREE, inp.current, inp.current),
            (kept, FIXED, inp.revealed, inp.current),
            (gone, FIXED, inp.revealed, inp.earlier),
        ]
        codes = np.vstack([cells[rows] for rows, _k, cells, _t in parts]).astype(np.int32)
        truth = np.vstack([t[rows] for rows, _k, _c, t in parts]).astype(np.int32)
        kind = np.concatenate([np.full(len(rows), k, np.int8) for rows, k, _c, _t in parts])
        src = np.concatenate([rows for rows, *_ in parts]).astype(np.int64)
        return cls(list(inp.columns), list(inp.labels), codes, truth, inp.counts[src].copy(),
                   kind, src)

    def rows(self, view: str) -> np.ndarray:
        """Rows of the new version (``"V"``) or of the combined view (``"C"``)."""
        return np.flatnonzero(self.kind != (FIXED if view == "V" else KEPT_V))

    def table(self, rows: np.ndarray) -> PatternTable:
        """A pattern table of ``rows`` (a copy of their cells; origin = work-table row)."""
        return PatternTable(list(self.columns), self.codes[rows].copy(), self.counts[rows].copy(),
                            list(self.labels), rows.astype(np.int64))

    def split(self, rows: np.ndarray, take: np.ndarray) -> np.ndarray:
        """Split ``take[i]`` records off row ``rows[i]`` (:meth:`PatternTable.split`, with the
        work table's other arrays); returns the rows now holding the taken records."""
        t = PatternTable(self.columns, self.codes, self.counts, self.labels,
                         np.arange(len(self.counts), dtype=np.int64))
        out = t.split(rows, take)
        added = t.origin[len(self.counts):]
        self.codes, self.counts = t.codes, t.counts
        self.truth = np.vstack([self.truth, self.truth[added]])
        self.kind = np.concatenate([self.kind, self.kind[added]])
        self.src = np.concatenate([self.src, self.src[added]])
        return out

    def checks(self, view: str, combinations: Sequence[Sequence[str]], k: int
               ) -> list[CombinationCheck]:
        """Class sizes (own category) and exact consistent sets of one view
        (:func:`dbt_deid.verify.check_coded`)."""
        rows = self.rows(view)
        cards = [len(lab) for lab in self.labels]
        return check_coded(self.truth[rows].astype(np.int64), self.codes[rows].astype(np.int64),
                           cards, self.columns, combinations, k, self.counts[rows])

    def suppressed_cells(self, rows: np.ndarray) -> int:
        """Record cells suppressed in ``rows``."""
        return int(((self.codes[rows] == SUPPRESSED).sum(axis=1) * self.counts[rows]).sum())


def suppress_in_order(work: WorkTable, rows: np.ndarray, order: np.ndarray, need: int,
                      idx: list[int], wrong: np.ndarray) -> int:
    """Suppress the cells ``wrong`` (one row per entry of ``rows``, columns ``idx``) of the
    work rows ``rows`` taken in ``order`` until their records cover ``need``; the last row
    taken is split so that only the records needed change (seed 000's combinations algorithm
    suppresses record by record, El Emam et al. 2011, "Suppression"). Returns the cells
    suppressed. Shared by the linked guard and the guard by person."""
    cum = np.cumsum(work.counts[rows[order]])
    last = int(np.searchsorted(cum, need))  # rows order[: last + 1] cover the need
    take = order[: last + 1]
    amounts = work.counts[rows[take]].copy()
    if last < len(order):
        amounts[-1] -= max(int(cum[last]) - need, 0)
    moved = work.split(rows[take], amounts)
    block = work.codes[np.ix_(moved, idx)]
    block[wrong[take]] = SUPPRESSED
    work.codes[np.ix_(moved, idx)] = block
    return int((wrong[take].sum(axis=1) * amounts).sum())
