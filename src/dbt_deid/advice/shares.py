"""Where a fixed-level release's suppression falls: per quasi-identifier and per combination.

El Emam et al. 2012 (HHP claims), "Base Algorithm": MaxSup bounds the share of records that
carry a suppressed quasi-identifier; El Emam et al. 2009 (CJHP) capped each column's suppressed
cells (15%). These functions measure both on the compact pattern table (never on records), at
the release's own levels or at any coarser node, so the advice can say which column and which
combination the suppression comes from.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from dbt_deid.patterns import SUPPRESSED, record_counts


@dataclass(frozen=True)
class Shares:
    """What a suppression run did: records with any suppressed released QI (MaxSup's figure),
    each column's share of suppressed cells (the column caps' figure) and, per verified
    combination, the share of records in a class smaller than k before suppression (what the
    suppression has to remove) and the share with a suppressed cell in that combination after
    it."""

    records: int
    records_with_suppression: int
    column_shares: Mapping[str, float]
    small_shares: Mapping[tuple[str, ...], float]
    combination_shares: Mapping[tuple[str, ...], float]

    @property
    def share(self) -> float:
        return self.records_with_suppression / self.records if self.records else 0.0

    def failing(self, max_suppression: float, caps: Mapping[str, float]) -> list[str]:
        """The gates these figures fail: ``max_suppression`` and ``column_suppression_cap``
        (the gate table's names), with the gates' own comparisons (share > limit)."""
        out = []
        if self.share > max_suppression:
            out.append("max_suppression")
        if any(self.column_shares.get(c, 0.0) > cap for c, cap in caps.items()):
            out.append("column_suppression_cap")
        return out


def small_class_shares(
    frame: pd.DataFrame, combinations: Sequence[Sequence[str]], k: int, count_column: str = "n"
) -> tuple[dict[tuple[str, ...], float], float]:
    """Per combination, the share of records in a class smaller than ``k`` (a class = records
    with the same values on the combination), and the share in such a class on any of them.
    Every such record must lose a cell to any suppression that makes the combination
    k-anonymous (suppression only removes records from a class), so the union is a lower bound
    on the records MaxSup counts."""
    counts = record_counts(frame, count_column)
    total = int(counts.sum())
    out: dict[tuple[str, ...], float] = {}
    union = np.zeros(len(frame), dtype=bool)
    for combo in combinations:
        keys = frame.groupby(list(combo), sort=False, dropna=False).ngroup().to_numpy()
        sizes = np.bincount(keys, weights=counts)[keys]
        small = sizes < k
        union |= small
        out[tuple(combo)] = float(counts[small].sum()) / total if total else 0.0
    return out, (float(counts[union].sum()) / total if total else 0.0)


def suppression_shares(
    codes: np.ndarray, counts: np.ndarray, columns: Sequence[str],
    released: Sequence[str], combinations: Sequence[Sequence[str]],
    small: Mapping[tuple[str, ...], float],
) -> Shares:
    """:class:`Shares` of a suppressed pattern table (``codes`` with ``SUPPRESSED`` cells,
    ``counts`` records per row, ``columns`` the names of ``codes``' columns)."""
    idx = {c: j for j, c in enumerate(columns)}
    sup = codes == SUPPRESSED
    total = int(counts.sum())
    rel = [idx[c] for c in released if c in idx]
    any_rel = sup[:, rel].any(axis=1) if rel else np.zeros(len(counts), dtype=bool)
    col_shares = {c: float(counts[sup[:, idx[c]]].sum()) / total if total else 0.0
                  for c in released if c in idx}
    combo_shares = {}
    for combo in combinations:
        js = [idx[c] for c in combo if c in idx]
        hit = sup[:, js].any(axis=1) if js else np.zeros(len(counts), dtype=bool)
        combo_shares[tuple(combo)] = float(counts[hit].sum()) / total if total else 0.0
    return Shares(records=total, records_with_suppression=int(counts[any_rel].sum()),
                  column_shares=col_shares, small_shares=dict(small),
                  combination_shares=combo_shares)


def shares_from_map(
    patterns: pd.DataFrame, suppression_map: pd.DataFrame, released: Sequence[str],
    combinations: Sequence[Sequence[str]], k: int, *, small_classes: bool = True,
) -> Shares:
    """:class:`Shares` of the build's own suppression, read from its suppression map
    (``deid_suppression_map``: one row per suppressed variant of a pattern, with ``n`` and a
    ``<qi>__suppressed`` flag per QI) and its pattern table (``deid_patterns``), so the
    release's figures are not computed a second time. ``small_classes=False`` leaves out the
    shares in classes smaller than k before suppression (one GROUP BY of the pattern table per
    combination: the caller computes them only for a refused release)."""
    counts = record_counts(patterns, "n")
    total = int(counts.sum())
    small = small_class_shares(patterns, combinations, k)[0] if small_classes else {}
    n = (suppression_map["n"].to_numpy(dtype=np.int64) if len(suppression_map)
         else np.zeros(0, dtype=np.int64))

    def flag(c: str) -> np.ndarray:
        col = f"{c}__suppressed"
        if col not in suppression_map.columns or not len(suppression_map):
            return np.zeros(len(n), dtype=bool)
        return suppression_map[col].fillna(False).to_numpy(dtype=bool)

    flags = {c: flag(c) for c in {*released, *(c for b in combinations for c in b)}}

    def share(cols: Sequence[str]) -> float:
        hit = np.zeros(len(n), dtype=bool)
        for c in cols:
            hit |= flags[c]
        return float(n[hit].sum()) / total if total else 0.0

    any_rel = np.zeros(len(n), dtype=bool)
    for c in released:
        any_rel |= flags[c]
    return Shares(records=total, records_with_suppression=int(n[any_rel].sum()),
                  column_shares={c: share([c]) for c in released},
                  small_shares=small,
                  combination_shares={tuple(b): share(b) for b in combinations})
