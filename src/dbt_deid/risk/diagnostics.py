"""Diagnostics of a release (El Emam et al. 2009 (CJHP) "Perform Diagnostics"; El Emam et al. 2011
information loss).

* Cumulative distribution of record risk (El Emam et al. 2009 (CJHP) Figure 4): for each risk value
r, the share of
  records whose risk is at or below r; most records usually sit far below the worst case.
* Class-size histogram: classes and records per class size.
* Suppression and missingness per column and broken down by another column (El Emam et al. 2011
Tables
  11-13 show suppression of a variable by region, age group and length of stay).
* Information loss: share of QI cells and of records with at least one suppressed QI (El Emam et al.
2011
  "missingness"; El Emam et al. 2009 (CJHP) counts records with cell suppression and per-variable
  suppression, Table 4).

Breakdowns never name a category holding fewer than k records: those are pooled into
``"other (n < k)"`` so the tables are safe to publish.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from dbt_deid.errors import ConfigError, DataError
from dbt_deid.risk._common import COUNT_COLUMN, check_qi, record_counts

OTHER = "other (n < k)"
SUPPRESSED_LABEL = "(suppressed)"


def risk_cdf(risk: np.ndarray, counts: np.ndarray | None = None) -> pd.DataFrame:
    """El Emam et al. 2009 (CJHP) Figure 4: ``risk``, ``records`` at that risk,
    ``cumulative_records`` and ``cumulative_share`` (share of records with risk <= the value),
    ascending."""
    r = np.asarray(risk, dtype=float)
    w = np.ones(len(r), np.int64) if counts is None else np.asarray(counts, np.int64)
    if len(r) == 0:
        raise DataError("no records: cannot build the risk distribution")
    frame = pd.DataFrame({"risk": np.round(r, 12), "records": w})
    out = frame.groupby("risk", sort=True)["records"].sum().reset_index()
    out["cumulative_records"] = out["records"].cumsum()
    out["cumulative_share"] = out["cumulative_records"] / out["records"].sum()
    return out


def share_at_or_below(cdf: pd.DataFrame, value: float) -> float:
    """Share of records with risk <= ``value`` read off :func:`risk_cdf`."""
    below = cdf.loc[cdf["risk"] <= value + 1e-12, "cumulative_share"]
    return float(below.iloc[-1]) if len(below) else 0.0


def class_size_histogram(sizes: np.ndarray, counts: np.ndarray | None = None) -> pd.DataFrame:
    """Per class size: ``class_size``, ``classes`` and ``records`` (from per-row sizes)."""
    s = np.asarray(sizes, dtype=np.int64)
    w = np.ones(len(s), np.int64) if counts is None else np.asarray(counts, np.int64)
    frame = pd.DataFrame({"class_size": s, "records": w})
    out = frame.groupby("class_size", sort=True)["records"].sum().reset_index()
    out["classes"] = (out["records"] // out["class_size"]).astype(np.int64)
    return out[["class_size", "classes", "records"]]


def binned_histogram(histogram: pd.DataFrame, k: int) -> pd.DataFrame:
    """:func:`class_size_histogram` in bins: each size below k on its own, then
    [k, 2k), [2k, 5k), [5k, 10k) and >= 10k. Columns ``bin``, ``classes``, ``records``."""
    if k < 1:
        raise ConfigError(f"k must be >= 1, got {k}")
    edges = [(s, s) for s in range(1, k)]
    edges += [(k, 2 * k - 1), (2 * k, 5 * k - 1), (5 * k, 10 * k - 1), (10 * k, None)]
    rows = []
    sizes = histogram["class_size"].to_numpy()
    for lo, hi in edges:
        sel = (sizes >= lo) & (sizes <= hi) if hi is not None else sizes >= lo
        label = str(lo) if hi == lo else (f"{lo}-{hi}" if hi is not None else f">= {lo}")
        rows.append({"bin": label, "classes": int(histogram.loc[sel, "classes"].sum()),
                     "records": int(histogram.loc[sel, "records"].sum())})
    return pd.DataFrame(rows)


def _missing(frame: pd.DataFrame, c: str, missing_values: Sequence[Any]) -> np.ndarray:
    if not missing_values:
        return np.zeros(len(frame), bool)
    return frame[c].isin(list(missing_values)).to_numpy()


def suppression_by_column(
    published: pd.DataFrame,
    columns: Sequence[str],
    *,
    count_column: str | None = COUNT_COLUMN,
    missing_values: Sequence[Any] = ("", "<missing>"),
) -> pd.DataFrame:
    """Per column: ``records``, ``suppressed`` (null cells), ``suppressed_share``,
    ``missing`` (original missing values, e.g. the missing label) and ``missing_share``."""
    cols = check_qi(published, columns)
    w = record_counts(published, count_column)
    n = int(w.sum())
    rows = []
    for c in cols:
        sup = published[c].isna().to_numpy()
        mis = _missing(published, c, missing_values) & ~sup
        rows.append({"column": c, "records": n, "suppressed": int(w[sup].sum()),
                     "suppressed_share": float(w[sup].sum()) / n,
                     "missing": int(w[mis].sum()), "missing_share": float(w[mis].sum()) / n})
    return pd.DataFrame(rows)


def lump_small(labels: pd.Series, weights: np.ndarray, k: int) -> pd.Series:
    """Replace categories with fewer than k records by :data:`OTHER` (nulls become
    :data:`SUPPRESSED_LABEL` first)."""
    if k < 1:
        raise ConfigError(f"k must be >= 1, got {k}")
    lab = labels.astype(object).where(labels.notna(), SUPPRESSED_LABEL).astype(str)
    totals = pd.Series(weights, index=lab.index).groupby(lab).sum()
    small = set(totals.index[totals < k])
    return lab.where(~lab.isin(small), OTHER)


def suppression_by(
    published: pd.DataFrame,
    columns: Sequence[str],
    by: str,
    k: int,
    *,
    count_column: str | None = COUNT_COLUMN,
    missing_values: Sequence[Any] = ("", "<missing>"),
) -> pd.DataFrame:
    """Suppression (and missingness) of ``columns`` per category of ``by``.

    One row per category of ``by`` with ``records``, and for each column ``<col>_suppressed``
    (share of the category's records with that cell suppressed); plus ``any_suppressed`` and
    ``missing`` shares. Categories with fewer than k records are pooled into
    ``"other (n < k)"``; when that pool itself holds fewer than k records its shares are
    blanked (NaN), only its record count is kept.
    """
    cols = check_qi(published, columns)
    check_qi(published, [by])
    w = record_counts(published, count_column)
    group = lump_small(published[by], w, k)
    data: dict[str, Any] = {"_g": group.to_numpy(), "records": w}
    sup = published[cols].isna().to_numpy()
    for j, c in enumerate(cols):
        data[f"{c}_suppressed"] = w * sup[:, j]
    data["any_suppressed"] = w * sup.any(axis=1)
    mis = np.zeros(len(published), bool)
    for c in cols:
        mis |= _missing(published, c, missing_values)
    data["any_missing"] = w * mis
    frame = pd.DataFrame(data).groupby("_g", sort=True).sum()
    share_cols = [c for c in frame.columns if c != "records"]
    for c in share_cols:
        frame[c] = frame[c] / frame["records"]
    frame = frame.reset_index().rename(columns={"_g": by})
    # a pooled group smaller than k is still a small group: drop its breakdown figures
    small_pool = (frame[by] == OTHER) & (frame["records"] < k)
    frame.loc[small_pool, share_cols] = np.nan
    return frame


def information_loss(
    published: pd.DataFrame,
    columns: Sequence[str],
    *,
    count_column: str | None = COUNT_COLUMN,
) -> dict[str, Any]:
    """Share of QI cells suppressed and of records with >= 1 suppressed QI (El Emam et al. 2011 and
    2009 (CJHP)), plus the records by number of suppressed QIs (El Emam et al. 2009 (CJHP) reports
    1, 2 and 3)."""
    cols = check_qi(published, columns)
    w = record_counts(published, count_column)
    n = int(w.sum())
    sup = published[cols].isna().to_numpy()
    per_record = sup.sum(axis=1)
    by_count = {int(m): int(w[per_record == m].sum()) for m in range(len(cols) + 1)}
    cells = int((w * per_record).sum())
    return {
        "records": n,
        "cells": n * len(cols),
        "cells_suppressed": cells,
        "cells_suppressed_share": cells / (n * len(cols)),
        "records_with_suppression": int(w[per_record > 0].sum()),
        "records_with_suppression_share": float(w[per_record > 0].sum()) / n,
        "records_by_suppressed_qis": by_count,
    }
