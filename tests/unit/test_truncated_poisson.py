"""The truncated-Poisson estimator of population class sizes (El Emam and Dankar 2008, as cited by
El Emam et al. 2012) against brute force, its Jinja twin, and a simulated population whose class
sizes are known (seeded), next to the scaling estimate f_j / alpha."""

from __future__ import annotations

import math
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from dbt_deid.config import parse_release
from dbt_deid.errors import ConfigError
from dbt_deid.risk.population import population_risk
from dbt_deid.tau import k_from_population
from dbt_deid.truncated_poisson import (
    estimate_population_sizes,
    k_for_population_threshold,
    truncated_poisson_mean,
)
from tests.macro_render import macro_caller

ROOT = Path(__file__).resolve().parents[2]


def _loglik(mu: float, f: int) -> float:
    """Log-likelihood of one zero-truncated Poisson observation f."""
    return f * math.log(mu) - mu - math.lgamma(f + 1) - math.log1p(-math.exp(-mu))


@pytest.mark.parametrize("f", [2, 3, 4, 7, 20, 150])
def test_mean_is_the_maximum_likelihood_of_the_truncated_poisson(f: int) -> None:
    mu = float(truncated_poisson_mean([f])[0])
    assert mu / (1 - math.exp(-mu)) == pytest.approx(f, rel=1e-10)
    grid = np.linspace(0.01, 2 * f, 20001)
    best = grid[np.argmax([_loglik(m, f) for m in grid])]
    assert mu == pytest.approx(best, abs=2 * (grid[1] - grid[0]))


def test_a_class_seen_once_has_mean_zero_and_large_classes_scale() -> None:
    assert truncated_poisson_mean([1, 1])[0] == 0.0
    est = estimate_population_sizes([1, 2, 500], 0.1, "truncated_poisson")
    assert est[0] == 1.0
    assert est[1] == pytest.approx(2 + 9 * 1.5936242600, rel=1e-6)
    assert est[2] == pytest.approx(500 / 0.1, rel=1e-9)
    assert list(estimate_population_sizes([1, 2, 500], 0.1)) == [10.0, 20.0, 5000.0]


def test_k_from_the_population_threshold() -> None:
    # El Emam et al. 2012 eq. 3 example: F_j = 20, alpha = 0.2 -> k = 4
    assert k_from_population(20, 0.2) == 4
    assert k_for_population_threshold(20, 0.2, "truncated_poisson") == 5
    assert k_for_population_threshold(20, 0.1, "truncated_poisson") == 3
    assert k_for_population_threshold(20, 0.1) == 2
    for estimator in ("scaling", "truncated_poisson"):
        assert k_for_population_threshold(20, 1.0, estimator) == 20  # the sample is the population
        assert k_for_population_threshold(1, 0.3, estimator) == 1


def test_bad_inputs_name_the_setting() -> None:
    with pytest.raises(ConfigError, match="population_estimator must be one of"):
        estimate_population_sizes([1], 0.1, "poisson")
    with pytest.raises(ConfigError, match="sampling fraction"):
        estimate_population_sizes([1], 0.0, "truncated_poisson")
    with pytest.raises(ConfigError, match=">= 1"):
        truncated_poisson_mean([0])


def test_jinja_twin_gives_the_same_k() -> None:
    call = macro_caller([ROOT / "macros" / "risk" / "truncated_poisson_k.sql"],
                        lambda call: {"dbt_deid": SimpleNamespace(), "dbt": SimpleNamespace(),
                                      "adapter": SimpleNamespace()})
    for threshold in (1, 2, 5, 20, 25, 60):
        for alpha in (0.01, 0.05, 0.1, 0.1614, 0.2, 0.5, 0.9, 1.0):
            want = k_for_population_threshold(threshold, alpha, "truncated_poisson")
            assert call("truncated_poisson_k")(threshold, alpha) == want, (threshold, alpha)


RELEASE = {
    "source": "s", "record_id": "id", "max_suppression": 0.1,
    "quasi_identifiers": {"age": {}}, "population_threshold": 20, "sampling_fraction": 0.1,
}


def test_setting_population_estimator() -> None:
    assert parse_release(RELEASE).k == 2  # default: today's behaviour
    assert parse_release({**RELEASE, "population_estimator": "scaling"}).k == 2
    assert parse_release({**RELEASE, "population_estimator": "truncated_poisson"}).k == 3
    with pytest.raises(ConfigError, match="population_estimator must be one of scaling"):
        parse_release({**RELEASE, "population_estimator": "poisson"})
    without_threshold = {k: v for k, v in RELEASE.items()
                         if k not in ("population_threshold", "sampling_fraction")}
    with pytest.raises(ConfigError, match="population_estimator must be one of scaling"):
        parse_release({**without_threshold, "tau": 0.05, "population_estimator": "Poisson"})


def simulate(seed: int, alpha: float, classes: int = 20000, shape: float = 0.5,
             mean: float = 30.0) -> tuple[np.ndarray, np.ndarray]:
    """A population of classes with gamma-Poisson sizes (heavy tail, many small classes) and a
    Bernoulli sample of fraction alpha: (true F_j, sample f_j) of the classes seen."""
    rng = np.random.default_rng(seed)
    big_f = rng.poisson(rng.gamma(shape, mean / shape, classes))
    big_f = big_f[big_f > 0]
    f = rng.binomial(big_f, alpha)
    return big_f[f > 0], f[f > 0]


@pytest.mark.parametrize("alpha", [0.05, 0.1, 0.2])
def test_share_at_risk_on_a_simulated_population(alpha: float) -> None:
    """Journalist risk (records in classes with F_j < k = 20): the scaling estimate misses most
    of the records at risk at small sampling fractions (a class seen once in a 10% sample is
    estimated at 10 people; most such classes are smaller); the truncated-Poisson estimate
    gets the share within a few points and misses fewer of those records."""
    big_f, f = simulate(34, alpha)
    k = 20
    truth = big_f < k
    true_share = f[truth].sum() / f.sum()
    errors, missed = {}, {}
    for estimator in ("scaling", "truncated_poisson"):
        flag = estimate_population_sizes(f, alpha, estimator) < k
        errors[estimator] = abs(f[flag].sum() / f.sum() - true_share)
        missed[estimator] = f[truth & ~flag].sum() / f.sum()
    assert true_share > 0.05
    assert errors["truncated_poisson"] < 0.5 * errors["scaling"]
    assert missed["truncated_poisson"] < 0.6 * missed["scaling"]


def test_population_risk_uses_the_estimator() -> None:
    published = pd.DataFrame({"age": ["a", "b", "c"], "n": [1, 2, 50]})
    scaled = population_risk(published, ["age"], 0.05, sampling_fraction=0.1)
    ztp = population_risk(published, ["age"], 0.05, sampling_fraction=0.1,
                          estimator="truncated_poisson")
    assert list(scaled.population_class_size) == [10.0, 20.0, 500.0]
    assert ztp.population_class_size[0] == 1.0
    assert ztp.journalist.records_above_tau == 3 > scaled.journalist.records_above_tau == 1
    assert ztp.source == "sampling fraction (truncated Poisson)"
