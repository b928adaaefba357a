"""The vectorised independent check counts exactly what the loop reference counts.

``tests/independent_check.py``'s ``consistent_counts`` (numpy) replaces the loop of
``smallest_consistent_set`` in ``bench/bench_scale.py``, where 24M records give millions of true
tuples per combination (issue 18). The guarantee it checks (El Emam et al. 2011, seed 000,
section 3: every record's true values consistent with at least k released records, a suppressed
cell consistent with anything) must not change with the speed-up: these tests compare the two
on random tables with suppressed cells (None, NaN, NA), missing labels, published values no
true tuple has, fully suppressed rows and count columns.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tests.independent_check import (
    consistent_counts,
    consistent_minimum,
    records_below_k,
    smallest_class,
    smallest_consistent_set,
    smallest_consistent_set_fast,
)

MISSING = "<missing>"


def _random_tables(seed: int, n_cols: int = 3) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """Aligned (true, published) tables: published = true with random cells suppressed (as
    None, NaN or NA), some rows fully suppressed, a few cells replaced by a value no record has
    (a wrong release: such a cell is consistent with no true tuple)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 80))
    cols = [f"c{j}" for j in range(n_cols)]
    truth = pd.DataFrame({
        c: rng.choice(["x", "y", "z", "1", MISSING][: int(rng.integers(1, 6))], n) for c in cols})
    published = truth.astype(object).copy()
    nulls = [None, np.nan, pd.NA]
    for c in cols:
        for i in np.flatnonzero(rng.random(n) < rng.uniform(0, 0.6)):
            published.loc[i, c] = nulls[int(rng.integers(0, 3))]
        for i in np.flatnonzero(rng.random(n) < 0.05):
            published.loc[i, c] = "never-true"
    for i in np.flatnonzero(rng.random(n) < 0.1):
        published.loc[i, cols] = None  # the fully suppressed class
    return truth, published, cols


def _per_tuple(truth: pd.DataFrame, published: pd.DataFrame, b: list[str],
               counts: str | None = None) -> list[int]:
    """Per true row, the published records consistent with it, by the definition itself: a
    double loop, a cell consistent when suppressed (missing) or equal as text."""
    out = []
    for t in truth[b].itertuples(index=False, name=None):
        total = 0
        for i, p in enumerate(published[b].itertuples(index=False, name=None)):
            if all(pd.isna(v) or str(v) == str(w) for v, w in zip(p, t, strict=True)):
                total += 1 if counts is None else int(published[counts].iloc[i])
        out.append(total)
    return out


def _grouped(published: pd.DataFrame, cols: list[str]) -> pd.DataFrame:
    """The pattern table of ``published``: each distinct row once, with its count ``n``."""
    marker = "\x00suppressed"
    filled = published[cols].astype(object).where(published[cols].notna(), marker)
    grouped = filled.groupby(cols, sort=True).size().rename("n").reset_index()
    return grouped.astype(object).where(grouped != marker, None)


@pytest.mark.parametrize("seed", range(40))
def test_fast_equals_the_loops(seed: int) -> None:
    truth, published, cols = _random_tables(seed)
    rng = np.random.default_rng(seed + 1000)
    b = list(rng.permutation(cols)[: int(rng.integers(1, len(cols) + 1))])
    expected = smallest_consistent_set(truth, published, b)
    assert smallest_consistent_set_fast(truth, published, b) == expected
    # per true tuple, against the definition
    assert list(consistent_counts(truth, published, b)) == _per_tuple(truth, published, b)
    # on the pattern level (published grouped with counts, true tuples distinct)
    grouped = _grouped(published, cols)
    distinct = truth.drop_duplicates()
    assert smallest_consistent_set_fast(distinct, grouped, b, counts="n") == expected
    assert smallest_consistent_set(distinct, grouped, b, counts="n") == expected
    assert (list(consistent_counts(distinct, grouped, b, counts="n"))
            == _per_tuple(distinct, grouped, b, counts="n"))


@pytest.mark.parametrize("seed", range(20))
def test_records_below_k_equals_the_loops(seed: int) -> None:
    truth, published, cols = _random_tables(seed)
    published = published.astype(object).where(published.notna(), None)  # the loops see None
    k = int(np.random.default_rng(seed).integers(1, 6))
    smallest, below = consistent_minimum(
        cols, list(truth.itertuples(index=False, name=None)),
        list(published.itertuples(index=False, name=None)), cols, k)
    assert smallest_consistent_set_fast(truth, published, cols) == smallest
    assert records_below_k(truth, published, cols, k) == below
    # true tuples grouped with their record counts count the same records
    true_grouped = truth.groupby(cols, sort=True).size().rename("records").reset_index()
    assert records_below_k(true_grouped, _grouped(published, cols), cols, k, counts="n",
                           true_counts="records") == below


def test_a_suppressed_cell_is_consistent_with_anything() -> None:
    """Fails when a suppressed cell is counted as a value (its own category, or the text
    'None' / 'nan'): the true tuple then finds only the one row showing both its values."""
    truth = pd.DataFrame({"a": ["x", "None", "nan"], "b": ["y", "y", MISSING]})
    published = pd.DataFrame({"a": ["x", None, np.nan, pd.NA, None],
                              "b": ["y", "y", None, MISSING, None]}, dtype=object)
    # x,y: itself, (None,y), (NaN,None), (None,None); None,y: the same three suppressed rows
    # (its own 'None' is a true value, equal to no shown cell); nan,<missing>: (NaN,None),
    # (NA,<missing>), (None,None)
    assert list(consistent_counts(truth, published, ["a", "b"])) == [4, 3, 3]
    assert smallest_consistent_set(truth, published, ["a", "b"]) == 3
    grouped = pd.DataFrame({"a": [None], "b": [None], "n": [7]}, dtype=object)
    assert list(consistent_counts(truth, grouped, ["a", "b"], counts="n")) == [7, 7, 7]


def test_categorical_columns_and_text_comparison() -> None:
    """Arrow strings read as categoricals (as bench_scale.py reads them) and values compared as
    text, as the reference does (the integer 1 equals the text '1')."""
    truth = pd.DataFrame({"a": pd.Categorical(["1", "2", "2"]), "b": ["u", "v", "w"]})
    published = pd.DataFrame({"a": pd.Categorical(["1", None, "2", "2"]),
                              "b": ["u", "v", None, "w"]})
    mixed = published.astype(object)
    mixed.loc[0, "a"] = 1
    plain = truth.astype(object)
    for pub in (published, mixed):
        assert (list(consistent_counts(truth, pub, ["a", "b"]))
                == [smallest_consistent_set(plain.iloc[[i]], pub.astype(object), ["a", "b"])
                    for i in range(3)])
    assert list(consistent_counts(truth, published, ["a", "b"])) == [1, 2, 2]


def test_many_wide_columns_do_not_overflow_the_keys() -> None:
    """Eight columns of 300 distinct values each: 300**8 > 2**62, so the joint key is
    renumbered on the way; the counts still equal the definition's and the reference's."""
    rng = np.random.default_rng(7)
    cols = [f"q{j}" for j in range(8)]
    base = rng.integers(0, 300, size=(40, 8))
    base = np.where(rng.random((40, 8)) < 0.6, base[0], base)  # tuples sharing values
    truth = pd.DataFrame({c: [f"v{v}" for v in base[:, j]] for j, c in enumerate(cols)})
    # every one of the 300 values occurs in each true column: a vocabulary 300 wide
    extra = pd.DataFrame({c: [f"v{v}" for v in range(300)] for c in cols})
    truth = pd.concat([truth, extra], ignore_index=True)
    published = truth.astype(object).where(rng.random(truth.shape) >= 0.3, None)
    per_tuple = consistent_counts(truth, published, cols)
    assert list(per_tuple) == _per_tuple(truth, published, cols)
    assert int(per_tuple.min()) == smallest_consistent_set(truth, published, cols)


def test_a_null_true_value_is_refused() -> None:
    truth = pd.DataFrame({"a": ["x", None]})
    with pytest.raises(ValueError, match="'a'.*missing label"):
        consistent_counts(truth, pd.DataFrame({"a": ["x"]}), ["a"])


def test_empty_tables() -> None:
    truth = pd.DataFrame({"a": pd.Series([], dtype=object)})
    published = pd.DataFrame({"a": ["x"]})
    assert smallest_consistent_set_fast(truth, published, ["a"]) == 0
    assert smallest_consistent_set(truth, published, ["a"]) == 0
    empty = pd.DataFrame({"a": pd.Series([], dtype=object)})
    assert list(consistent_counts(pd.DataFrame({"a": ["x"]}), empty, ["a"])) == [0]


def test_joint_keys_are_renumbered_before_they_overflow() -> None:
    """Five columns of 2**16 codes: a plain mixed-radix key would multiply the first column by
    2**64 and wrap to 0, so rows differing only there would collide."""
    from tests.independent_check import _joint_keys

    first = np.array([0, 1, 0], dtype=np.int64)
    rest = np.array([0, 0, 1], dtype=np.int64)
    keys = _joint_keys([first, rest, rest * 0, rest * 0, rest * 0], [2**16] * 5, 3)
    assert len(set(keys.tolist())) == 3


def test_the_loops_ignore_unobserved_categories() -> None:
    """Categorical columns (Arrow dictionaries read into pandas) make pandas' value_counts list
    every combination of categories, observed or not, with count 0: the loop reference must
    not take those for classes or true tuples."""
    truth = pd.DataFrame({"a": pd.Categorical(["1", "2"]), "b": pd.Categorical(["u", "v"])})
    published = pd.DataFrame({"a": pd.Categorical(["1", "1", None, None]),
                              "b": pd.Categorical(["u", "u", "v", "v"])})
    plain_truth, plain_published = truth.astype(object), published.astype(object)
    assert smallest_class(published, ["a", "b"]) == smallest_class(plain_published, ["a", "b"])
    assert (smallest_consistent_set(truth, published, ["a", "b"])
            == smallest_consistent_set(plain_truth, plain_published, ["a", "b"]) == 2)
    grouped = published.groupby(["a", "b"], dropna=False, observed=True).size().rename("n")
    grouped = grouped.reset_index()
    assert smallest_class(grouped, ["a", "b"], counts="n") == 2
