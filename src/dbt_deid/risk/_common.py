"""Shared checks for pattern tables given as DataFrames.

A pattern table holds one row per distinct quasi-identifier (QI) tuple with its record count in
``count_column`` (``n`` by default, :data:`dbt_deid.patterns.COUNT_COLUMN`); with
``count_column=None`` every row is one record. A suppressed cell is ``None``/``NaN``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from dbt_deid.errors import ConfigError, DataError
from dbt_deid.patterns import COUNT_COLUMN, record_counts

__all__ = ["COUNT_COLUMN", "check_qi", "record_counts", "suppressed_mask"]


def check_qi(frame: pd.DataFrame, qi: Sequence[str], what: str = "pattern table") -> list[str]:
    """The QI list, checked against the frame's columns (non-empty, no repeats)."""
    cols = [str(c) for c in qi]
    if not cols:
        raise ConfigError("give at least one quasi-identifier column")
    if len(set(cols)) != len(cols):
        raise ConfigError(f"quasi-identifier list repeats a column: {cols}")
    missing = [c for c in cols if c not in frame.columns]
    if missing:
        raise DataError(f"{what} has no column(s) {missing}; it has {list(frame.columns)}")
    if len(frame) == 0:
        raise DataError(f"{what} is empty: there are no records to measure")
    return cols


def suppressed_mask(frame: pd.DataFrame, cols: Sequence[str]) -> np.ndarray:
    """Boolean (rows x cols): True where the cell is suppressed (None/NaN)."""
    return frame[list(cols)].isna().to_numpy()
