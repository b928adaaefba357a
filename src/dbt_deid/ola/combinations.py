"""OLA's criterion over the release's quasi-identifier combinations.

El Emam et al. 2011 (national discharge abstracts, the combinations cell-suppression algorithm)
protect a release by the *combinations* of quasi-identifiers an adversary may know, not by all
of them at once: every record's class on each protected combination must hold at least k
records. OLA (El Emam et al. 2009; El Emam et al. 2012 "Base Algorithm") groups by all quasi-
identifiers; with declared combinations that asks for far more than the release needs (a node
can leave half of the records in small all-QI classes and pass on every combination). Here a
node is judged as the release is: each combination's classes are formed separately (the node's
generalized pattern table projected on the combination's QIs), a record is *suppressed* when it
lies in a class smaller than k on any combination, or comes to lie in one once the records
suppressed for the other combinations are removed (record-level suppression blanks every QI of a
record, so it leaves its class on every combination: the kept records are the largest set whose
classes all hold k of them), and the node passes when those records are at most MaxSup (counted
once per record, as the ``max_suppression`` gate counts records with any suppressed quasi-
identifier).

The criterion stays monotone over the lattice, which OLA's predictive tagging needs: the kept
records at a node are the largest set in which every class of every combination holds k of them
(the union of two such sets is one), and a set that is one at a node is one at every node
generalizing it (classes only merge). With one combination of all QIs it is OLA's own
criterion.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from dbt_deid.errors import ConfigError


def combination_indices(names: Sequence[str], combinations: Sequence[Sequence[str]] | None
                        ) -> tuple[tuple[int, ...], ...] | None:
    """Each combination as QI positions in ``names``; None when the combinations are OLA's own
    criterion (none given, or one naming every QI)."""
    if not combinations:
        return None
    pos = {n: i for i, n in enumerate(names)}
    out = []
    for i, combo in enumerate(combinations):
        unknown = [c for c in combo if c not in pos]
        if unknown or not combo:
            raise ConfigError(f"combinations[{i}] names {unknown or 'no'} quasi-identifier(s)"
                              f" of the search; it searches {list(names)}")
        out.append(tuple(sorted({pos[c] for c in combo})))
    uniq = tuple(sorted(set(out)))
    if len(uniq) == 1 and len(uniq[0]) == len(names):
        return None
    return uniq


def small_in_any(codes: np.ndarray, counts: np.ndarray, radices: Sequence[int],
                 combinations: Sequence[Sequence[int]], k: int) -> np.ndarray:
    """Mask of the rows of a class table (``codes``: one row per all-QI class, ``counts`` its
    records, ``radices[j]`` the number of codes of QI j) that record-level suppression takes:
    those whose class on some combination holds fewer than ``k`` records, then those whose
    class on some combination holds fewer than ``k`` of the records left, until none does
    (suppressing a record removes it from its class on every other combination too)."""
    small = np.zeros(len(counts), dtype=bool)
    keys = [_combination_classes(codes, radices, combo) for combo in combinations]
    while True:
        left = np.where(small, 0, counts)
        more = np.zeros(len(counts), dtype=bool)
        for inverse in keys:
            sizes = np.bincount(inverse, weights=left)[inverse]
            more |= sizes < k
        more &= ~small
        if not more.any():
            return small
        small |= more


def _combination_classes(codes: np.ndarray, radices: Sequence[int], combo: Sequence[int]
                         ) -> np.ndarray:
    """Per row, the number of its class on the QIs ``combo``."""
    space = 1
    for j in combo:
        space *= max(int(radices[j]), 1)
    if space >= 1 << 62:
        _, inverse = np.unique(codes[:, list(combo)], axis=0, return_inverse=True)
        return inverse.ravel()
    keys = np.zeros(len(codes), dtype=np.int64)
    for j in combo:
        keys *= max(int(radices[j]), 1)
        keys += codes[:, j]
    _, inverse = np.unique(keys, return_inverse=True)
    return inverse


def describe(names: Sequence[str], combinations: Sequence[Sequence[int]] | None) -> str:
    """How nodes were judged, for logs and reports."""
    if combinations is None:
        return "classes over all quasi-identifiers at once"
    parts = ["+".join(names[j] for j in combo) for combo in combinations]
    return ("classes of each combination separately (" + "; ".join(parts) + "); a record"
            " counts as suppressed when it is in a class smaller than k on any of them, or"
            " becomes so once the records suppressed for another combination are removed")
