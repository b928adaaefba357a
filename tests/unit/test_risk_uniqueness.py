"""Uniqueness estimators on known answers: hand-computed cases, closed forms, seeded simulation."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from dbt_deid.errors import ConfigError, DataError
from dbt_deid.risk import (
    estimate_uniqueness,
    fit_pitman,
    pitman_expected_uniques,
    uniqueness_from_sizes,
    zayatz_population_uniques,
)
from dbt_deid.risk.uniqueness import (
    frequency_of_frequencies,
    hypergeom_one,
    pitman_log_likelihood,
)


def test_hypergeometric_one_drawn():
    assert hypergeom_one(8, 1, 4) == pytest.approx(0.5)  # P(a given unit is sampled) = n/N
    assert hypergeom_one(8, 2, 4) == pytest.approx(2 * math.comb(6, 3) / math.comb(8, 4))
    assert hypergeom_one(5, 5, 5) == 0.0  # all five drawn: never exactly one


def test_zayatz_hand_computed():
    # sample sizes (1, 1, 2): n = 4, u = 3, n_1 = 2; N = 8 so f = 1/2
    # P(1|1) = 1/2, P(1|2) = 2 C(6,3)/C(8,4) = 4/7
    # P(F=1|f=1) = (2/3 * 1/2) / (2/3 * 1/2 + 1/3 * 4/7) = 7/11; U = 2 * 7/11 / (1/2) = 28/11
    assert zayatz_population_uniques([1, 1, 2], 8) == pytest.approx(28 / 11)


def test_zayatz_on_a_census_is_exact():
    assert zayatz_population_uniques([1, 1, 2, 3], 7) == pytest.approx(2.0)
    assert zayatz_population_uniques([2, 3], 50) == 0.0
    with pytest.raises(DataError):
        zayatz_population_uniques([1, 2], 2)


def test_pitman_sampling_formula_sums_to_one():
    # set partitions of 3 items: {3} once, {2,1} three ways, {1,1,1} once
    theta, alpha = 1.3, 0.4
    total = 0.0
    for sizes, ways in (([3], 1), ([2, 1], 3), ([1, 1, 1], 1)):
        freq = frequency_of_frequencies(sizes)
        total += ways * math.exp(pitman_log_likelihood(theta, alpha, freq, 3, len(sizes)))
    assert total == pytest.approx(1.0)
    # {2,1} by hand: (theta + alpha) (1 - alpha) / ((theta + 1)(theta + 2))
    freq = frequency_of_frequencies([2, 1])
    assert math.exp(pitman_log_likelihood(1.0, 0.5, freq, 3, 2)) == pytest.approx(0.125)


def test_pitman_expected_uniques_closed_forms():
    # Ewens (alpha = 0): E[singletons] = N theta / (theta + N - 1)
    assert pitman_expected_uniques(5.0, 0.0, 100) == pytest.approx(500 / 104)
    # large N: Hoshino's Gamma(theta+1)/Gamma(theta+alpha) N^alpha
    theta, alpha, n = 20.0, 0.5, 1e8
    hoshino = math.exp(math.lgamma(theta + 1) - math.lgamma(theta + alpha)) * n ** alpha
    assert pitman_expected_uniques(theta, alpha, n) == pytest.approx(hoshino, rel=1e-5)


def _crp(n: int, theta: float, alpha: float, rng: np.random.Generator) -> np.ndarray:
    """Population class sizes from the Pitman (Chinese restaurant) process."""
    sizes: list[int] = []
    draws = rng.random(n)
    for t in range(n):
        if t == 0 or draws[t] * (theta + t) < theta + len(sizes) * alpha:
            sizes.append(1)
        else:
            w = np.asarray(sizes, dtype=float) - alpha
            sizes[int(rng.choice(len(sizes), p=w / w.sum()))] += 1
    return np.asarray(sizes)


@pytest.fixture(scope="module")
def pitman_population() -> np.ndarray:
    return _crp(6000, 60.0, 0.35, np.random.default_rng(20120066))


def _sample(pop: np.ndarray, fraction: float, seed: int) -> np.ndarray:
    labels = np.repeat(np.arange(len(pop)), pop)
    rng = np.random.default_rng(seed)
    drawn = rng.choice(labels, int(round(len(labels) * fraction)), replace=False)
    return np.unique(drawn, return_counts=True)[1]


def test_pitman_recovers_simulated_population(pitman_population):
    pop = pitman_population
    true_uniques = int((pop == 1).sum())
    sample = _sample(pop, 0.1, 1)
    fit = fit_pitman(sample)
    assert fit.converged
    assert fit.alpha == pytest.approx(0.35, abs=0.12)
    est = uniqueness_from_sizes(sample, population_size=pop.sum())
    assert est.method == "pitman"
    assert est.pitman_uniques == pytest.approx(true_uniques, rel=0.25)
    # Zayatz over-estimates at small sampling fractions (El Emam et al. 2010, Chen & Keller-McNulty)
    assert est.zayatz_uniques > est.pitman_uniques


def test_zayatz_close_at_large_sampling_fraction(pitman_population):
    pop = pitman_population
    true_uniques = int((pop == 1).sum())
    est = uniqueness_from_sizes(_sample(pop, 0.4, 2), population_size=pop.sum())
    assert est.method == "zayatz"  # f > 0.1 (Dankar et al. 2012)
    assert est.zayatz_uniques == pytest.approx(true_uniques, rel=0.2)
    assert est.population_uniqueness == pytest.approx(est.zayatz_uniques / pop.sum())


def test_selection_rule_edge_cases():
    no_pairs = uniqueness_from_sizes([1, 1, 3, 4], sampling_fraction=0.05)
    assert no_pairs.method == "zayatz"
    none = uniqueness_from_sizes([2, 3, 5], sampling_fraction=0.05)
    assert none.population_uniqueness == 0.0 and none.sample_uniqueness == 0.0
    census = uniqueness_from_sizes([1, 1, 2], sampling_fraction=1.0)
    assert census.population_uniques == 2 and census.population_uniqueness == pytest.approx(0.5)
    with pytest.raises(ConfigError):
        uniqueness_from_sizes([1, 2], sampling_fraction=1.5)
    with pytest.raises(DataError):
        uniqueness_from_sizes([], sampling_fraction=0.5)


def test_estimate_uniqueness_on_pattern_table():
    frame = pd.DataFrame({"a": ["x", "y", None, "z"], "b": ["1", "1", "1", "2"],
                          "n": [1, 1, 2, 3]})
    est = estimate_uniqueness(frame, ["a", "b"], sampling_fraction=0.5)
    assert est.sample_uniques == 2 and est.n_records == 7 and est.n_classes == 4
    assert est.sample_uniqueness == pytest.approx(2 / 7)
    assert est.population_size == pytest.approx(14)
    assert est.to_dict()["selected_method"] == "zayatz"
