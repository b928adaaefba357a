"""Risk checks on a release: class sizes and the exact consistent-set count.

For a combination b, the prosecutor risk of a record is 1/f_j where f_j is the size of its
equivalence class (seed 000, "Equivalence Classes"; seed 003: max risk 1/min f_j).

* ``class_sizes``: classes formed with a suppressed value as its own category (the fully
  suppressed class included). All classes >= k is *sufficient* for the guarantee.
* ``exact_consistent_counts``: the definitive count. For each record, the number of published
  records consistent with its true values on b, a suppressed cell being consistent with anything:
  |{r : for all z in b, pub[r, z] is suppressed or pub[r, z] = true[i, z]}|. It is computed per
  suppression mask m: the published records with mask m that match the true values on the
  unsuppressed columns, summed over the masks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

_NULL = "\x00<suppressed>"


def _fill(frame: pd.DataFrame, cols: Sequence[str]) -> pd.DataFrame:
    return frame[list(cols)].astype(object).where(frame[list(cols)].notna(), _NULL)


def class_sizes(
    published: pd.DataFrame, combination: Sequence[str], counts: np.ndarray | None = None
) -> np.ndarray:
    """Size of each row's class on ``combination`` (suppressed = its own category)."""
    cols = list(combination)
    w = np.ones(len(published), np.int64) if counts is None else np.asarray(counts, np.int64)
    keys = _fill(published, cols)
    grouped = pd.Series(w).groupby([keys[c].to_numpy() for c in cols], dropna=False)
    return grouped.transform("sum").to_numpy(dtype=np.int64)


def exact_consistent_counts(
    true_values: pd.DataFrame,
    published: pd.DataFrame,
    combination: Sequence[str],
    counts: np.ndarray | None = None,
) -> np.ndarray:
    """For each row of ``true_values``, how many published records are consistent with it.

    ``published`` holds the released values (null = suppressed) with ``counts`` records per
    row (one per row when None). ``true_values`` rows need not align with ``published``.
    """
    cols = list(combination)
    w = np.ones(len(published), np.int64) if counts is None else np.asarray(counts, np.int64)
    pub = published[cols].reset_index(drop=True)
    mask = pub.isna().to_numpy()
    truth = true_values[cols].astype(object).reset_index(drop=True)
    total = np.zeros(len(truth), dtype=np.int64)
    if len(pub) == 0:
        return total
    mask_ids, inverse = np.unique(mask, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    for m_i, m in enumerate(mask_ids):
        rows = inverse == m_i
        keep = [c for c, s in zip(cols, m, strict=True) if not s]
        n = int(w[rows].sum())
        if not keep:  # fully suppressed on b: consistent with every record
            total += n
            continue
        part = pub.loc[rows, keep].astype(object).assign(_w=w[rows])
        sums = part.groupby(keep, dropna=False, sort=False)["_w"].sum().rename("_c")
        merged = truth[keep].merge(sums, left_on=keep, right_index=True, how="left")
        total += merged["_c"].fillna(0).to_numpy(dtype=np.int64)
    return total


@dataclass(frozen=True)
class CombinationCheck:
    """The verdict for one combination."""

    combination: tuple[str, ...]
    k: int
    smallest_class: int
    small_classes: int
    records_in_small_classes: int
    min_consistent: int
    records_below_k_exact: int

    @property
    def ok(self) -> bool:
        return self.smallest_class >= self.k and self.min_consistent >= self.k


def check_release(
    true_values: pd.DataFrame,
    published: pd.DataFrame,
    combinations: Sequence[Sequence[str]],
    k: int,
    counts: np.ndarray | None = None,
) -> list[CombinationCheck]:
    """Check every combination: class sizes (sufficient) and exact consistent sets (definitive).

    ``true_values`` and ``published`` are aligned row by row (record i's true and released
    values), each row standing for ``counts[i]`` records.
    """
    w = np.ones(len(published), np.int64) if counts is None else np.asarray(counts, np.int64)
    out = []
    for b in combinations:
        sizes = class_sizes(published, b, w)
        small = sizes < k
        keys = _fill(published.loc[small], list(b))
        n_small = len(keys.drop_duplicates()) if small.any() else 0
        exact = exact_consistent_counts(true_values, published, b, w)
        out.append(
            CombinationCheck(
                combination=tuple(b),
                k=k,
                smallest_class=int(sizes.min()),
                small_classes=int(n_small),
                records_in_small_classes=int(w[small].sum()),
                min_consistent=int(exact.min()),
                records_below_k_exact=int(w[exact < k].sum()),
            )
        )
    return out
