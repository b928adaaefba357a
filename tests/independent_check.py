"""An independent re-implementation of the release guarantee, for tests only.

Deliberately written without the package's code: plain Python loops over records. For every
combination and every record, count the released records consistent with the record's true
values (a suppressed cell, None, is consistent with anything), and the class sizes with a
suppressed value as its own category.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
import pandas as pd


def _rows(frame: pd.DataFrame, cols: Sequence[str]) -> list[tuple]:
    return [
        tuple(None if pd.isna(v) else v for v in row)
        for row in frame[list(cols)].itertuples(index=False)
    ]


def smallest_class(published: pd.DataFrame, combination: Sequence[str]) -> int:
    counts = Counter(_rows(published, combination))
    return min(counts.values())


def smallest_consistent_set(
    true_values: pd.DataFrame, published: pd.DataFrame, combination: Sequence[str]
) -> int:
    """min over records of |{released r : r agrees with the record wherever r is not None}|."""
    released = Counter(_rows(published, combination))
    tuples = list(released)
    weights = np.array([released[r] for r in tuples], dtype=np.int64)
    values = np.array([[("" if v is None else str(v)) for v in r] for r in tuples], dtype=object)
    wildcard = np.array([[v is None for v in r] for r in tuples], dtype=bool)
    best = None
    for t in set(_rows(true_values, combination)):
        target = np.array([str(v) for v in t], dtype=object)
        consistent = (wildcard | (values == target)).all(axis=1)
        n = int(weights[consistent].sum())
        best = n if best is None else min(best, n)
    return int(best or 0)
