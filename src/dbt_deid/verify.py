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

from dbt_deid.coded import factorize_columns, group_sums, lookup, row_keys


def _weights(published: pd.DataFrame, counts: np.ndarray | None) -> np.ndarray:
    if counts is None:
        return np.ones(len(published), np.int64)
    return np.asarray(counts, np.int64)


def class_keys(published: pd.DataFrame, combination: Sequence[str]) -> np.ndarray:
    """One int64 class key per row of ``published`` on ``combination`` (null = own category)."""
    (codes,), cards = factorize_columns([published], list(combination))
    return row_keys(codes, cards)


def class_sizes(
    published: pd.DataFrame, combination: Sequence[str], counts: np.ndarray | None = None
) -> np.ndarray:
    """Size f_j of each row's class on ``combination`` (suppressed = its own category)."""
    w = _weights(published, counts)
    if len(published) == 0:
        return np.zeros(0, dtype=np.int64)
    _, inverse = np.unique(class_keys(published, combination), return_inverse=True)
    inverse = inverse.reshape(-1)
    return np.bincount(inverse, weights=w).astype(np.int64)[inverse]


def exact_consistent_counts(
    true_values: pd.DataFrame,
    published: pd.DataFrame,
    combination: Sequence[str],
    counts: np.ndarray | None = None,
) -> np.ndarray:
    """For each row of ``true_values``, how many published records are consistent with it.

    ``published`` holds the released values (null = suppressed) with ``counts`` records per
    row (one per row when None). ``true_values`` rows need not align with ``published``.
    Values are compared by equality; a null true value matches no released value (it is
    consistent only with suppressed cells).
    """
    cols = list(combination)
    w = _weights(published, counts)
    n_truth = len(true_values)
    if len(published) == 0 or n_truth == 0:
        return np.zeros(n_truth, dtype=np.int64)
    (pub, truth), cards = factorize_columns([published, true_values], cols)
    # Distinct true tuples: the count depends on the tuple only.
    full = row_keys(truth, cards)
    _, first, back = np.unique(full, return_index=True, return_inverse=True)
    truth_u = truth[first]
    total = np.zeros(len(first), dtype=np.int64)
    bits = (pub == -1).astype(np.int64) @ (np.int64(1) << np.arange(len(cols), dtype=np.int64))
    masks, inverse = np.unique(bits, return_inverse=True)
    inverse = inverse.reshape(-1)
    for m_i, m in enumerate(masks):
        rows = inverse == m_i
        keep = [j for j in range(len(cols)) if not (int(m) >> j) & 1]
        if not keep:  # fully suppressed on b: consistent with every record
            total += int(w[rows].sum())
            continue
        sub_cards = [cards[j] for j in keep]
        pub_rows = pub[rows][:, keep]
        keys = row_keys(np.vstack([pub_rows, truth_u[:, keep]]), sub_cards)
        uniq, sums = group_sums(keys[: len(pub_rows)], w[rows])
        total += lookup(uniq, sums, keys[len(pub_rows):])
    return total[back.reshape(-1)]


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
    w = _weights(published, counts)
    out = []
    for b in combinations:
        sizes = class_sizes(published, b, w)
        small = sizes < k
        n_small = len(np.unique(class_keys(published.loc[small], b))) if small.any() else 0
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
