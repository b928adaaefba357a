"""The population-risk and uniqueness models read the pattern table (issue 15).

``deid_population_risk`` and ``deid_uniqueness`` read ``deid_suppressed_patterns`` (one row per
(released, true) pattern with its count ``n``, the SQL GROUP BY of ``deid_suppressed``) instead
of the records. Every estimator depends on the records only through the class sizes f_j of the
released patterns: journalist risk 1/F_j and marketer risk sum_j f_j / F_j (El Emam et al. 2011,
discharge PUMF, equations 2-3), and the Zayatz / Pitman estimates, which read the frequencies of
class sizes (El Emam et al. 2010, small areas, "Estimating Uniqueness"). So the frames are equal
whichever table they read.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

from dbt_deid.dbt_side.glue.risk import population_risk_frame, uniqueness_frame

QIS = ["age", "sex", "region"]


def _release(**extra: Any) -> dict[str, Any]:
    return {
        "name": "patterns_vs_records", "source": "src", "record_id": "rid",
        "quasi_identifiers": {q: {"level": 0} for q in QIS},
        "combinations": [["age", "sex"], QIS], "tau": 0.2, "max_suppression": 0.5, **extra,
    }


def _records(n: int = 3000, seed: int = 5) -> pd.DataFrame:
    """deid_suppressed-like records: released ``<qi>`` (None = suppressed cell) and the true
    value at the released level ``<qi>__generalized``; small classes on purpose."""
    rng = np.random.default_rng(seed)
    truth = pd.DataFrame({
        "age": rng.choice([f"{a}-{a + 9}" for a in range(0, 100, 10)], n,
                          p=np.r_[np.full(9, 0.108), 0.028]),
        "sex": rng.choice(["F", "M", "<missing>"], n, p=[0.5, 0.49, 0.01]),
        "region": rng.choice([f"R{i:02d}" for i in range(30)], n),
    })
    out = pd.DataFrame({"rid": np.arange(n)})
    for q in QIS:
        published = truth[q].astype(object).copy()
        published[rng.random(n) < 0.08] = None
        out[q] = published
        out[f"{q}__generalized"] = truth[q]
    return out


def _patterns(records: pd.DataFrame) -> pd.DataFrame:
    """dbt_deid.pattern_counts_sql on the released and true columns (NULL is a group value)."""
    cols = [c for q in QIS for c in (q, f"{q}__generalized")]
    return records.groupby(cols, dropna=False, sort=False).size().reset_index(name="n")


def _population(records: pd.DataFrame, factor: int = 7) -> pd.DataFrame:
    """deid_population_patterns-like: true tuples with counts, every class factor times larger,
    plus classes absent from the release."""
    truth = records[[f"{q}__generalized" for q in QIS]].set_axis(QIS, axis=1)
    pop = truth.groupby(QIS).size().reset_index(name="n")
    pop["n"] *= factor
    extra = pop.head(5).assign(region="R99", n=3)
    return pd.concat([pop, extra], ignore_index=True)


@pytest.mark.parametrize("settings", [
    {"sampling_fraction": 0.1}, {"population_size": 50_000}, {"population": "pop"},
])
def test_population_risk_equal_on_records_and_patterns(settings: dict[str, Any]) -> None:
    records = _records()
    patterns = _patterns(records)
    assert len(patterns) < len(records) / 2  # the pattern table is the smaller input
    population = _population(records) if "population" in settings else None
    release = _release(**settings)
    from_records = population_risk_frame(records, population, release)
    from_patterns = population_risk_frame(patterns, population, release)
    assert int(from_patterns["records"].iloc[0]) == len(records)
    # sums of 1/F_j over records vs n_j/F_j over patterns: equal up to float summation order
    pd.testing.assert_frame_equal(from_records, from_patterns, check_exact=False, rtol=1e-12)


@pytest.mark.parametrize("settings", [
    {"sampling_fraction": 0.1}, {"population_size": 50_000}, {"population": "pop"},
])
def test_uniqueness_equal_on_records_and_patterns(settings: dict[str, Any]) -> None:
    records = _records(seed=9)
    patterns = _patterns(records)
    population = _population(records) if "population" in settings else None
    release = _release(**settings)
    from_records = uniqueness_frame(records, population, release)
    from_patterns = uniqueness_frame(patterns, population, release)
    pd.testing.assert_frame_equal(from_records, from_patterns, check_exact=False, rtol=1e-12)
    assert (from_patterns["sample_uniques"] > 0).all()  # the fixture has uniques to estimate


def test_patterns_without_counts_would_differ() -> None:
    """The equality is not vacuous: the same patterns read as records (no ``n``) change the
    figures."""
    records = _records()
    patterns = _patterns(records).drop(columns="n")
    release = _release(sampling_fraction=0.1)
    a = uniqueness_frame(records, None, release)
    b = uniqueness_frame(patterns, None, release)
    assert not a.equals(b)
