"""The independent check on a grouped (pattern) table counts what it counts on the records.

``bench/bench_scale.py`` checks 24M-record releases on the pattern level (El Emam et al. 2011:
the guarantee depends only on the multiset of released tuples and the set of true tuples)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from tests.independent_check import smallest_class, smallest_consistent_set


@pytest.mark.parametrize("seed", range(20))
def test_grouped_counts_equal_the_records(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 60))
    truth = pd.DataFrame({"a": rng.choice(["x", "y", "z"], n), "b": rng.choice(["1", "2"], n)})
    published = truth.astype(object).copy()
    for col in ("a", "b"):
        published.loc[rng.random(n) < 0.3, col] = None
    grouped = (published.fillna("<s>").groupby(["a", "b"]).size().rename("n").reset_index()
               .replace("<s>", None))
    b = ["a", "b"]
    assert smallest_class(grouped, b, counts="n") == smallest_class(published, b)
    assert (smallest_consistent_set(truth.drop_duplicates(), grouped, b, counts="n")
            == smallest_consistent_set(truth, published, b))
