"""Reading and writing CSV files for the CLI, with the package's missing/suppressed conventions.

In CLI input files an empty cell is a *missing* original value, which is data (its own
category), not a suppression. In output files an empty cell is a *suppressed* value and a missing
original value is written as the missing label (``<missing>`` unless told otherwise), so the two
stay distinguishable.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from dbt_deid.errors import DataError


def read_table(path: str | Path, delimiter: str = ",") -> pd.DataFrame:
    """All columns as strings; empty cells stay empty strings (missing values)."""
    p = Path(path)
    if not p.exists():
        raise FileNotFoundError(f"input file {str(p)!r} does not exist")
    frame = pd.read_csv(p, sep=delimiter, dtype=str, keep_default_na=False, na_filter=False)
    if len(frame) == 0:
        raise DataError(f"input file {str(p)!r} has no records")
    return frame.astype(object)


def mark_missing(frame: pd.DataFrame, columns: list[str], label: str) -> pd.DataFrame:
    """Replace empty cells of ``columns`` by the missing label (a category of its own)."""
    out = frame.copy()
    for c in columns:
        out[c] = out[c].where(out[c] != "", label)
    return out
