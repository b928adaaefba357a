"""Synthetic discharge abstracts month by month: the source of the demo's living line.

A data custodian refreshes an analytical file (El Emam et al. 2011, "Discussion": the file for
researchers under a data sharing agreement, threshold "say 0.2") every month as the DAD
receives abstracts. Month 1 is ``rows`` abstracts shaped like Table 2
(:func:`dbt_deid.tools.synthetic.discharge.discharge_table`); month ``m`` > 1 is month ``m - 1``
with, all seeded:

* a month of new abstracts (``rows`` more, ids continuing after the earlier months');
* ``delete_share`` of the records present withdrawn (deleted upstream);
* ``correct_share`` of the records present corrected: their most responsible diagnosis and
  case mix group replaced by another record's (a coding correction), every other column kept.

Deterministic for (``rows``, ``month``, ``seed``): the same month is the same table, so the
living line's refresh reads exactly the changes listed above.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from dbt_deid.tools.synthetic.discharge import discharge_table

#: The first month's first admission date (the DAD 2008/09 fiscal year starts in April).
FIRST_MONTH = np.datetime64("2008-04-01")


def _month_records(rows: int, month: int, seed: int) -> pd.DataFrame:
    """The abstracts received in ``month`` (1-based): ``rows`` records, ids after the earlier
    months', admissions within the month's 30 days."""
    frame = discharge_table(rows, seed=seed * 1000 + month, first_id=(month - 1) * rows + 1,
                            start=str(FIRST_MONTH)).to_pandas()
    offset = (frame["admission_date"] - pd.Timestamp(FIRST_MONTH)).dt.days % 30
    frame["admission_date"] = (pd.Timestamp(FIRST_MONTH)
                               + pd.to_timedelta(30 * (month - 1) + offset, unit="D"))
    return frame


def discharge_months(rows: int, month: int, seed: int = 42, delete_share: float = 0.01,
                     correct_share: float = 0.001) -> pd.DataFrame:
    """The abstracts on file after ``month`` months (see the module docstring), ordered by
    ``abstract_id``."""
    if rows <= 0 or month < 1:
        raise ValueError(f"rows must be positive and month at least 1, got {rows}, {month}")
    frame = _month_records(rows, 1, seed)
    for m in range(2, month + 1):
        rng = np.random.default_rng([seed, m])
        n = len(frame)
        deleted = rng.choice(n, size=round(delete_share * n), replace=False)
        frame = frame.drop(frame.index[deleted]).reset_index(drop=True)
        corrected = rng.choice(len(frame), size=round(correct_share * n), replace=False)
        donors = rng.choice(len(frame), size=len(corrected), replace=True)
        for column in ("mrdx", "cmg"):
            values = frame[column].to_numpy(copy=True)
            values[corrected] = values[donors]
            frame[column] = values
        frame = pd.concat([frame, _month_records(rows, m, seed)], ignore_index=True)
    return frame.sort_values("abstract_id").reset_index(drop=True)
