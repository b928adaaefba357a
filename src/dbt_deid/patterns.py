"""The compact pattern table: distinct QI tuples with their record counts.

The warehouse builds it with one ``GROUP BY`` (``models/deid_patterns.sql``); the Python core
works only on it. Values are integer-coded per column (codes follow the sorted labels, so every
run is deterministic); code ``SUPPRESSED`` (-1) marks a suppressed cell.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from dbt_deid.coded import row_keys
from dbt_deid.errors import DataError

SUPPRESSED = -1
COUNT_COLUMN = "n"


def record_counts(
    frame: pd.DataFrame, count_column: str | None = COUNT_COLUMN, what: str = "pattern table"
) -> np.ndarray:
    """Records per row of a pattern table: ``frame[count_column]`` (positive whole counts),
    or ones for a record table (``count_column`` None). The one reader of pattern counts: the
    suppression, OLA's node evaluation and the risk measures all call it."""
    if count_column is None:
        return np.ones(len(frame), dtype=np.int64)
    if count_column not in frame.columns:
        raise DataError(f"{what} has no count column {count_column!r}")
    raw = pd.to_numeric(frame[count_column], errors="coerce")
    if raw.isna().any():
        raise DataError(f"{what} column {count_column!r} has a missing or non-numeric count")
    values = raw.to_numpy(dtype=float)
    if (values <= 0).any() or (values != np.floor(values)).any():
        raise DataError(f"{what} column {count_column!r} must hold positive whole counts")
    return values.astype(np.int64)


@dataclass
class PatternTable:
    """Integer-coded patterns.

    ``codes[i, j]`` is the code of column ``columns[j]`` in pattern ``i`` (-1 when suppressed),
    ``labels[j][code]`` its label, ``counts[i]`` the number of records with the pattern and
    ``origin[i]`` the row of the input pattern table it came from (patterns are split when only
    some of their records are suppressed).
    """

    columns: list[str]
    codes: np.ndarray
    counts: np.ndarray
    labels: list[np.ndarray]
    origin: np.ndarray

    @property
    def n_records(self) -> int:
        return int(self.counts.sum())

    def col(self, name: str) -> int:
        return self.columns.index(name)

    def rows_of(self, origin: np.ndarray) -> np.ndarray:
        """Rows of this table holding the given origins (input-frame row numbers)."""
        inverse = np.empty(int(self.origin.max()) + 1, dtype=np.int64)
        inverse[self.origin] = np.arange(len(self.origin))
        return inverse[origin]

    def copy(self) -> PatternTable:
        return PatternTable(
            list(self.columns), self.codes.copy(), self.counts.copy(), list(self.labels),
            self.origin.copy(),
        )

    @classmethod
    def from_frame(
        cls, frame: pd.DataFrame, columns: Sequence[str], count_column: str | None = COUNT_COLUMN,
        order_by: np.ndarray | None = None,
    ) -> PatternTable:
        """Encode a pattern table (or a record table when ``count_column`` is None).

        Null cells in the input are treated as already suppressed. Rows are put in label order;
        rows with the same values are ordered by ``order_by`` (one sort key per row, e.g. the
        rank of a record id), then by count: the order the algorithm takes records in never
        depends on the order the rows came in, except among rows equal in all of these (which
        are interchangeable).
        """
        missing = [c for c in columns if c not in frame.columns]
        if missing:
            raise DataError(
                f"pattern table has no column(s) {missing}; it has {list(frame.columns)}"
            )
        if len(frame) == 0:
            raise DataError("pattern table is empty: the release has no records")
        counts = record_counts(frame, count_column)
        codes = np.empty((len(frame), len(columns)), dtype=np.int32)
        labels: list[np.ndarray] = []
        for j, c in enumerate(columns):
            # Hash the raw values once (C speed; nulls get -1), then str() and sort only the
            # distinct ones; distinct raw values with the same str() share a label.
            raw_codes, raw_uniq = pd.factorize(frame[c], use_na_sentinel=True)
            as_str = [str(v) for v in raw_uniq]
            uniq = np.array(sorted(set(as_str)), dtype=object)
            lookup = {v: i for i, v in enumerate(uniq)}
            rank = np.array([lookup[s] for s in as_str] + [SUPPRESSED], dtype=np.int32)
            codes[:, j] = rank[raw_codes]  # index -1 -> the appended SUPPRESSED
            labels.append(uniq)
        # Rows in label order, whatever order the warehouse returned the pattern table in, so
        # that ties are broken the same way in every run (a release is repeatable). The codes
        # are label ranks, so one order-preserving int64 key per row (coded.row_keys, mixed
        # radix) sorts them as a lexsort over the columns would: one sort key instead of one
        # per column (issue 18).
        ties = [counts] if order_by is None else [counts, np.asarray(order_by)]
        key = row_keys(codes, [len(u) for u in labels])
        order = np.lexsort([*ties[::-1], key])
        return cls(list(columns), codes[order], counts[order], labels, order.astype(np.int64))

    def labels_at(self, column: str, rows: np.ndarray) -> pd.Series:
        """Labels of ``column`` at ``rows`` as an Arrow-backed string series (null where
        suppressed): built by Arrow's ``take`` instead of one Python object per cell."""
        j = self.col(column)
        codes = self.codes[rows, j]
        labels = pa.array([str(v) for v in self.labels[j]], type=pa.string())
        taken = pc.take(labels, pa.array(codes, mask=codes < 0))
        return pd.Series(pd.arrays.ArrowStringArray(taken), name=column)

    def decode(self, columns: Sequence[str] | None = None) -> pd.DataFrame:
        """Labels as a frame, ``None`` for suppressed cells."""
        cols = list(columns or self.columns)
        out = {}
        for c in cols:
            j = self.col(c)
            lab = np.append(self.labels[j], None)  # index -1 -> None
            out[c] = lab[self.codes[:, j]]
        frame = pd.DataFrame(out, dtype=object)
        frame[COUNT_COLUMN] = self.counts
        return frame

    def split(self, rows: np.ndarray, take: np.ndarray) -> np.ndarray:
        """Split ``take[i]`` records off pattern ``rows[i]`` into new pattern rows.

        Returns the indices of the new rows (same codes, counts ``take``). Where ``take`` equals
        the whole count, the row itself is returned instead of a copy.
        """
        rows = np.asarray(rows, dtype=np.int64)
        take = np.asarray(take, dtype=np.int64)
        whole = take >= self.counts[rows]
        result = rows.copy()
        part = ~whole
        if part.any():
            src = rows[part]
            start = len(self.counts)
            self.codes = np.vstack([self.codes, self.codes[src]])
            self.counts = np.concatenate([self.counts, take[part]])
            self.origin = np.concatenate([self.origin, self.origin[src]])
            self.counts[src] -= take[part]
            result[part] = np.arange(start, start + part.sum())
        return result
