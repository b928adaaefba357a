"""Risk checks on a release: class sizes and the exact consistent-set count.

For a combination b, the prosecutor risk of a record is 1/f_j where f_j is the size of its
equivalence class (El Emam et al. 2011, "Equivalence Classes"; El Emam et al. 2009 (CJHP): max risk
1/min f_j).

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

from dbt_deid.coded import dense_codes, factorize_columns, group_sums, lookup, row_keys


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
    (codes,), cards = factorize_columns([published], list(combination))
    return coded_class_sizes(codes, cards, w)


def coded_class_sizes(codes: np.ndarray, cards: Sequence[int], weights: np.ndarray) -> np.ndarray:
    """:func:`class_sizes` on integer codes (``rows x columns``, -1 = suppressed)."""
    if len(codes) == 0:
        return np.zeros(0, dtype=np.int64)
    inverse, n = dense_codes(row_keys(codes, cards))
    return np.bincount(inverse, weights=weights, minlength=n).astype(np.int64)[inverse]


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
    w = _weights(published, counts)
    if len(published) == 0 or len(true_values) == 0:
        return np.zeros(len(true_values), dtype=np.int64)
    (pub, truth), cards = factorize_columns([published, true_values], list(combination))
    return coded_consistent_counts(truth, pub, cards, w)


def coded_consistent_counts(
    truth: np.ndarray, pub: np.ndarray, cards: Sequence[int], weights: np.ndarray
) -> np.ndarray:
    """:func:`exact_consistent_counts` on integer codes shared by both arrays (-1 in ``pub`` =
    suppressed, -1 in ``truth`` = a null true value, equal to no released value)."""
    if len(pub) == 0 or len(truth) == 0:
        return np.zeros(len(truth), dtype=np.int64)
    q = truth.shape[1]
    # Distinct true tuples: the count depends on the tuple only.
    _, first, back = np.unique(row_keys(truth, cards), return_index=True, return_inverse=True)
    truth_u = truth[first]
    total = np.zeros(len(first), dtype=np.int64)
    # Rows grouped by which cells are suppressed (one bit per column; past 62 columns, as the
    # linked guard's per-release columns can be, the boolean rows themselves)
    if q <= 62:
        bits = (pub == -1).astype(np.int64) @ (np.int64(1) << np.arange(q, dtype=np.int64))
        masks_int, inverse = np.unique(bits, return_inverse=True)
        masks = [[not (int(m) >> j) & 1 for j in range(q)] for m in masks_int]
    else:
        masks_bool, inverse = np.unique(pub == -1, axis=0, return_inverse=True)
        masks = [[not b for b in row] for row in masks_bool.tolist()]
    inverse = inverse.reshape(-1)
    for m_i, shown in enumerate(masks):
        rows = inverse == m_i
        keep = [j for j in range(q) if shown[j]]
        if not keep:  # fully suppressed on b: consistent with every record
            total += int(weights[rows].sum())
            continue
        sub_cards = [cards[j] for j in keep]
        pub_rows = pub[rows][:, keep]
        keys = row_keys(np.vstack([pub_rows, truth_u[:, keep]]), sub_cards)
        uniq, sums = group_sums(keys[: len(pub_rows)], weights[rows])
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
    cols = list(dict.fromkeys(c for b in combinations for c in b))
    (pub, truth), cards = factorize_columns([published, true_values], cols)
    return check_coded(truth, pub, cards, cols, combinations, k, w)


def check_coded(
    truth: np.ndarray,
    pub: np.ndarray,
    cards: Sequence[int],
    columns: Sequence[str],
    combinations: Sequence[Sequence[str]],
    k: int,
    weights: np.ndarray,
) -> list[CombinationCheck]:
    """:func:`check_release` on integer codes (``columns`` name the code columns)."""
    out = []
    for b in combinations:
        idx = [list(columns).index(c) for c in b]
        sub_cards = [cards[j] for j in idx]
        p, t = pub[:, idx], truth[:, idx]
        sizes = coded_class_sizes(p, sub_cards, weights)
        small = sizes < k
        n_small = len(np.unique(row_keys(p[small], sub_cards))) if small.any() else 0
        exact = coded_consistent_counts(t, p, sub_cards, weights)
        out.append(
            CombinationCheck(
                combination=tuple(b),
                k=k,
                smallest_class=int(sizes.min()) if len(sizes) else 0,
                small_classes=int(n_small),
                records_in_small_classes=int(weights[small].sum()),
                min_consistent=int(exact.min()) if len(exact) else 0,
                records_below_k_exact=int(weights[exact < k].sum()),
            )
        )
    return out
