"""Generalization hierarchies of the HHP quasi-identifiers (El Emam et al. 2012, Table 4).

Each hierarchy is a DataFrame with one row per original value: column ``level_0`` holds the
value and ``level_1``, ``level_2``, ... its generalizations (strings), so that a value maps
``value -> level_1 -> level_2 ...`` and each level nests in the next (two values with the same
label at level l have the same label at every level above l). These frames are what a dbt seed
would hold; :func:`generalize` applies one (a left join on ``level_0`` in SQL).

Table 4 (levels after the original value):

* Age: 5-year interval, 80+ -> 10-year interval, 80+ -> 20-year interval, 80+.
* DaysInHospital (Y2, Y3): days to 2 weeks, >2 weeks -> days to 1 week, 1-2 weeks, >2 weeks.
* LOS: days up to 6 days, weeks afterward -> days up to 6, (1-2], (2-4], (4-8], (8-12], (12-26],
  26+ weeks -> <1 week, (1-2] ... 26+ weeks -> <4 weeks, (4-8] ... 26+ weeks.
* DSFC (days since first claim): weeks -> 2 weeks -> months. A "month" is 4 weeks so that the
  levels nest (the release in Table 5 uses "4 weeks").

Weeks of LOS are counted up (7 days = 1 week, 8-14 days = 2 weeks) so that "(1-2] weeks" is
exactly 7-14 days and each level nests in the next.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from dbt_deid.errors import DataError

MAX_AGE = 120
MAX_DAYS = 366

_LOS_BANDS = ((14, "(1-2] weeks"), (28, "(2-4] weeks"), (56, "(4-8] weeks"), (84, "(8-12] weeks"),
              (182, "(12-26] weeks"))


def _frame(values: np.ndarray, levels: list[Callable[[int], str]]) -> pd.DataFrame:
    data: dict[str, object] = {"level_0": values.astype(np.int64)}
    for i, f in enumerate(levels, start=1):
        data[f"level_{i}"] = [f(int(v)) for v in values]
    return pd.DataFrame(data)


def _band(lo: int, width: int, top: int) -> str:
    if lo >= top:
        return f"{top}+"
    start = lo // width * width
    return f"{start}-{start + width - 1}"


def age_hierarchy(max_age: int = MAX_AGE) -> pd.DataFrame:
    """Age in years -> 5-year, 80+ -> 10-year, 80+ -> 20-year, 80+ (Table 4)."""
    return _frame(np.arange(max_age + 1), [
        lambda v: _band(v, 5, 80), lambda v: _band(v, 10, 80), lambda v: _band(v, 20, 80),
    ])


def days_in_hospital_hierarchy(max_days: int = MAX_DAYS) -> pd.DataFrame:
    """Days -> days to 2 weeks, >2 weeks -> days to 1 week, 1-2 weeks, >2 weeks (Table 4)."""
    def l1(v: int) -> str:
        return str(v) if v <= 14 else ">2 weeks"

    def l2(v: int) -> str:
        return str(v) if v <= 7 else ("1-2 weeks" if v <= 14 else ">2 weeks")

    return _frame(np.arange(max_days + 1), [l1, l2])


def _los_band(v: int) -> str:
    for upper, label in _LOS_BANDS:
        if v <= upper:
            return label
    return "26+ weeks"


def los_hierarchy(max_days: int = MAX_DAYS) -> pd.DataFrame:
    """Length of stay in days, four levels above the days (Table 4)."""
    def l1(v: int) -> str:
        return f"{v} days" if v <= 6 else f"{-(-v // 7)} weeks"

    def l2(v: int) -> str:
        return f"{v} days" if v <= 6 else _los_band(v)

    def l3(v: int) -> str:
        return "<1 week" if v <= 6 else _los_band(v)

    def l4(v: int) -> str:
        return "<4 weeks" if v <= 28 else _los_band(v)

    return _frame(np.arange(max_days + 1), [l1, l2, l3, l4])


def dsfc_hierarchy(max_days: int = MAX_DAYS) -> pd.DataFrame:
    """Days since first claim -> weeks -> 2 weeks -> months of 4 weeks (Table 4)."""
    return _frame(np.arange(max_days + 1), [
        lambda v: f"week {v // 7}", lambda v: f"2 weeks {v // 14}", lambda v: f"month {v // 28}",
    ])


def default_hierarchies() -> dict[str, pd.DataFrame]:
    """The Table 4 hierarchies keyed by the generator's column names."""
    dih = days_in_hospital_hierarchy()
    return {
        "age": age_hierarchy(),
        "dih_y2": dih,
        "dih_y3": dih,
        "los": los_hierarchy(),
        "dsfc": dsfc_hierarchy(),
    }


def height(hierarchy: pd.DataFrame) -> int:
    """Number of levels above the original value."""
    return sum(1 for c in hierarchy.columns if c.startswith("level_")) - 1


def check_hierarchy(name: str, hierarchy: pd.DataFrame) -> None:
    """Raise DataError unless levels are ``level_0..level_h``, values unique and levels nest."""
    cols = [f"level_{i}" for i in range(height(hierarchy) + 1)]
    if list(hierarchy.columns[: len(cols)]) != cols or not cols:
        raise DataError(f"hierarchy {name!r} must have columns level_0, level_1, ...")
    if hierarchy["level_0"].duplicated().any():
        raise DataError(f"hierarchy {name!r} repeats original values in level_0")
    for lower, upper in zip(cols[:-1], cols[1:], strict=True):
        if (hierarchy.groupby(lower, sort=False)[upper].nunique() > 1).any():
            raise DataError(f"hierarchy {name!r}: {lower} does not nest in {upper}")


def level_codes(
    name: str, values: pd.Series, hierarchy: pd.DataFrame
) -> tuple[list[np.ndarray], list[int]]:
    """Integer codes of ``values`` at every level of ``hierarchy``.

    Returns (codes per level, cardinality per level). A missing value gets its own code at
    every level (the last one). A value absent from ``level_0`` is a DataError naming the
    column (and how many values are unknown, never the values themselves).
    """
    idx = pd.Index(hierarchy["level_0"])
    missing = values.isna().to_numpy()
    lookup = values.where(~missing, hierarchy["level_0"].iloc[0])
    pos = idx.get_indexer(lookup.astype(hierarchy["level_0"].dtype))
    unknown = int(((pos < 0) & ~missing).sum())
    if unknown:
        raise DataError(
            f"column {name!r}: {unknown} value(s) are not in the hierarchy's level_0;"
            " top-code or extend the hierarchy"
        )
    codes, cards = [], []
    for lvl in range(height(hierarchy) + 1):
        per_row, labels = pd.factorize(hierarchy[f"level_{lvl}"], sort=False)
        card = len(labels)
        c = per_row[np.maximum(pos, 0)].astype(np.int32)
        c[missing] = card
        codes.append(c)
        cards.append(card + 1)
    return codes, cards


def generalize(values: pd.Series, hierarchy: pd.DataFrame, level: int) -> pd.Series:
    """The labels of ``values`` at ``level`` (SQL: left join the hierarchy on level_0)."""
    m = dict(zip(hierarchy["level_0"], hierarchy[f"level_{level}"], strict=True))
    return values.map(m)
