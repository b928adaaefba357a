"""OLA's record-level suppression of the released node's small classes.

El Emam et al. 2012 (El Emam et al. 2009, OLA) "Base Algorithm" and El Emam et al. 2009 (CJHP)
(prescription records) "Apply Generalization and Suppression": after OLA picks a node, every record
of a class smaller than k has all its quasi-identifiers suppressed. Input and output are pattern
tables (one row per pattern with its count), so the dbt release runs it on ``deid_patterns``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from dbt_deid.errors import DataError


def record_suppression(
    patterns: pd.DataFrame, k: int, count_column: str = "n",
    combinations: Sequence[Sequence[str]] | None = None,
) -> np.ndarray:
    """OLA's record-level suppression (El Emam et al. 2012 "Base Algorithm"; El Emam et al. 2009
    (CJHP) "Apply Generalization and Suppression"): every record in a class smaller than k (a
    pattern of the released node's pattern table, all QIs together) has all its QIs suppressed.
    Returns, per pattern, how many of its records are suppressed.

    With ``combinations`` (the release's verified QI combinations,
    :mod:`dbt_deid.ola.combinations`) a record is suppressed when its class on *any*
    combination is smaller than k, as OLA judged the node.

    The published table keeps suppressed records (QIs NULL) instead of deleting them, so the
    fully suppressed records are a class of their own: when there are fewer than k of them,
    records are taken from the largest classes (never below k), then whole classes (the
    smallest first, including what is left of a class that gave records), until the class
    reaches k (as El Emam et al. 2011's combinations algorithm grows it): this always succeeds when
    the table has k records. With combinations a record is only taken while every combination
    class it belongs to keeps k records, and a class a whole pattern's removal leaves smaller
    than k is suppressed too. Ties between classes of one size are broken by the patterns'
    values, never by the row order of the pattern table.
    """
    counts = patterns[count_column].to_numpy(dtype=np.int64)
    values = [c for c in patterns.columns if c != count_column]
    combos = [list(c) for c in combinations] if combinations else [values]
    groups = [patterns.groupby(list(c), dropna=False, sort=False).ngroup().to_numpy()
              for c in combos]
    take = np.zeros(len(counts), dtype=np.int64)
    _suppress_small(counts, take, groups, k)
    need = k - int(take.sum()) if 0 < take.sum() < k else 0
    order = np.lexsort((_label_rank(patterns, values), -counts))  # largest first, then values
    sizes = [np.bincount(g, weights=counts - take).astype(np.int64) for g in groups]
    for i in order:
        if need == 0:
            break
        spare = min(int(size[g[i]]) for g, size in zip(groups, sizes, strict=True)) - k
        t = min(need, spare, int(counts[i] - take[i]))
        if t > 0:
            take[i] += t
            need -= t
            for g, size in zip(groups, sizes, strict=True):
                size[g[i]] -= t
    for i in order[::-1]:  # smallest first: whole classes (the rest of a class that gave too)
        if need <= 0:
            break
        if counts[i] >= k and take[i] < counts[i]:
            need -= int(counts[i] - take[i])
            take[i] = counts[i]
            _suppress_small(counts, take, groups, k)
            need = k - int(take.sum())
    if need > 0:
        raise DataError(
            f"only {int(counts.sum())} records: the suppressed records cannot reach k = {k}"
        )
    return take


def _suppress_small(counts: np.ndarray, take: np.ndarray, groups: Sequence[np.ndarray],
                    k: int) -> None:
    """Take every record left in a class (of any combination) smaller than k, until none is."""
    while True:
        left = counts - take
        small = np.zeros(len(counts), dtype=bool)
        for g in groups:
            sizes = np.bincount(g, weights=left)[g]
            small |= (sizes < k) & (left > 0)
        if not small.any():
            return
        take[small] = counts[small]


def _label_rank(patterns: pd.DataFrame, columns: Sequence[str]) -> np.ndarray:
    """Rank of each row in the order of its values (as text, nulls last), column by column."""
    keys: list[np.ndarray] = []
    for c in reversed(list(columns)):
        null = patterns[c].isna().to_numpy()
        text = np.array(["" if m else str(v) for v, m in zip(patterns[c], null, strict=True)],
                        dtype=object)
        _, codes = np.unique(text, return_inverse=True)
        keys += [codes.reshape(-1), null]
    order = np.lexsort(keys) if keys else np.arange(len(patterns))
    rank = np.empty(len(patterns), dtype=np.int64)
    rank[order] = np.arange(len(patterns))
    return rank


def record_suppression_map(
    patterns: pd.DataFrame, qi_names: Sequence[str], k: int, count_column: str = "n",
    combinations: Sequence[Sequence[str]] | None = None,
) -> pd.DataFrame:
    """:func:`record_suppression` as the suppression map ``deid_suppressed`` joins (the same
    format as the combinations cell suppression): per pattern with suppressed records, its QI
    values, ``n`` suppressed records, ranks 1..n and every ``<qi>__suppressed`` flag true."""
    take = record_suppression(patterns, k, count_column, combinations)
    hit = take > 0
    out = patterns.loc[hit, list(qi_names)].reset_index(drop=True)
    out["n"] = take[hit]
    out["rank_from"] = 1
    out["rank_to"] = take[hit]
    for q in qi_names:
        out[f"{q}__suppressed"] = True
    return out
