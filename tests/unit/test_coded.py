"""Integer row keys (dbt_deid.coded) and the checks built on them (dbt_deid.verify)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd

from dbt_deid.coded import (
    dense_codes,
    factorize_columns,
    group_sums,
    group_totals,
    lookup,
    row_keys,
)
from dbt_deid.verify import class_sizes, exact_consistent_counts


def test_factorize_shares_codes_across_frames_and_codes_null_as_minus_one() -> None:
    a = pd.DataFrame({"x": ["p", None, "q"]})
    b = pd.DataFrame({"x": ["q", "r", None]})
    (ca, cb), cards = factorize_columns([a, b], ["x"])
    assert cards == [3]
    assert ca[:, 0].tolist()[1] == -1 and cb[:, 0].tolist()[2] == -1
    assert ca[2, 0] == cb[0, 0]  # "q" in both frames
    assert len({ca[0, 0], ca[2, 0], cb[1, 0]}) == 3


def test_row_keys_equal_exactly_when_rows_equal_even_past_int64_radix() -> None:
    rng = np.random.default_rng(7)
    cards = [2**20] * 5  # product of radices far beyond 2**62: forces re-densifying
    codes = rng.integers(-1, 3, size=(500, 5)).astype(np.int64)
    keys = row_keys(codes, cards)
    for i, j in itertools.combinations(range(60), 2):
        assert (keys[i] == keys[j]) == bool((codes[i] == codes[j]).all())


def test_group_sums_and_lookup() -> None:
    uniq, sums = group_sums(np.array([5, 3, 5, 9]), np.array([1, 2, 3, 4]))
    assert uniq.tolist() == [3, 5, 9] and sums.tolist() == [2, 4, 4]
    assert lookup(uniq, sums, np.array([9, 4, 3, 100])).tolist() == [4, 0, 2, 0]
    assert lookup(np.array([], dtype=np.int64), np.array([]), np.array([1])).tolist() == [0]


def test_dense_codes_and_group_totals_agree_with_the_sorted_forms() -> None:
    rng = np.random.default_rng(11)
    keys = rng.integers(-5, 40, size=2_000).astype(np.int64) * 7919
    weights = rng.integers(1, 9, size=2_000)
    codes, n = dense_codes(keys)
    assert n == len(np.unique(keys)) and codes.min() == 0 and codes.max() == n - 1
    for i, j in itertools.combinations(range(80), 2):
        assert (codes[i] == codes[j]) == (keys[i] == keys[j])
    uniq, sums = group_sums(keys, weights)
    totals = group_totals(keys, weights)
    # the same sum per key, whatever order each form lists the keys in
    first = {int(k): i for i, k in reversed(list(enumerate(keys.tolist())))}
    assert {int(k): int(totals[codes[first[int(k)]]]) for k in uniq} == dict(
        zip(uniq.tolist(), sums.tolist(), strict=True))


def _brute_consistent(truth: pd.DataFrame, pub: pd.DataFrame, cols: list[str], w) -> list[int]:
    out = []
    for _, t in truth.iterrows():
        n = 0
        for r, p in enumerate(pub.itertuples(index=False)):
            row = p._asdict()
            if all(pd.isna(row[c]) or (not pd.isna(t[c]) and row[c] == t[c]) for c in cols):
                n += int(w[r])
        out.append(n)
    return out


def test_exact_counts_and_class_sizes_match_brute_force() -> None:
    rng = np.random.default_rng(3)
    for _ in range(5):
        n = 40
        pub = pd.DataFrame({c: rng.choice(["x", "y", None], n) for c in "abc"})
        pub["n"] = pd.array(rng.choice([1, 2], n), dtype="Int64")
        pub.loc[rng.random(n) < 0.2, "n"] = pd.NA
        truth = pd.DataFrame({c: rng.choice(["x", "y", "z", None], n) for c in "abc"})
        truth["n"] = rng.choice([1, 2, 3], n)
        w = rng.integers(1, 4, n)
        cols = ["a", "b", "n"]
        assert exact_consistent_counts(truth, pub, cols, w).tolist() == _brute_consistent(
            truth, pub, cols, w
        )
        sizes = class_sizes(pub, cols, w)
        filled = pub[cols].astype(object).where(pub[cols].notna(), "<s>")
        for i in range(n):
            same = (filled == filled.iloc[i]).all(axis=1).to_numpy()
            assert sizes[i] == w[same].sum()


def test_row_keys_sort_as_a_lexsort_over_the_columns_even_past_int64_radix() -> None:
    """PatternTable.from_frame sorts by the key instead of one lexsort key per column: the
    orders must be identical (ties in every column, suppressed cells, and a radix product past
    2**62 that forces the re-densifying path)."""
    rng = np.random.default_rng(7)
    for cards in ([3, 2, 4], [60_000] * 5):
        codes = np.stack([rng.integers(-1, min(c, 6), 4_000) for c in cards], axis=1)
        counts = rng.integers(1, 3, 4_000)
        by_columns = np.lexsort([counts, *codes.T[::-1]])
        by_key = np.lexsort([counts, row_keys(codes, cards)])
        assert (by_columns == by_key).all()


def test_coded_consistent_counts_past_62_columns_match_brute_force() -> None:
    """The linked guard counts on the combination repeated per stored release (review 11 final,
    M1): past 62 columns the rows' suppression masks no longer fit one int64. On the bit form
    (1 << j for j >= 63 wraps) this miscounted."""
    from dbt_deid.verify import coded_consistent_counts

    rng = np.random.default_rng(5)
    q, cards = 70, [2] * 70
    pub = rng.integers(0, 2, size=(300, q))
    pub[rng.random(pub.shape) < 0.9] = -1  # mostly suppressed: many rows consistent
    pub[:40, :] = -1
    truth = rng.integers(0, 2, size=(25, q))
    weights = rng.integers(1, 4, size=300)
    got = coded_consistent_counts(truth, pub, cards, weights)
    fits = ((pub[None, :, :] == -1) | (pub[None, :, :] == truth[:, None, :])).all(axis=2)
    assert got.tolist() == (fits * weights[None, :]).sum(axis=1).tolist()
