"""Population equivalence-class sizes estimated from a sample: the truncated-Poisson estimator.

El Emam et al. 2012 (HHP claims, "Base Algorithm") sets k = f_j = alpha F_j under a large-sample
assumption and adds: "in practice more sophisticated methods for estimating f_j would be used
[...] especially for small sampling fractions. In our case, we used an estimator based on the
truncated Poisson distribution [28]"; reference 28 is El Emam K, Dankar FK, "Protecting privacy
using k-anonymity", JAMIA 2008;15(5):627-637, which El Emam et al. 2011 (discharge PUMF) also
cites (refs. 99, 134) for the journalist risk 1/F_j of a sample drawn from a population.

The text of that reference is not available to this project (see docs/population-estimation.md);
what follows is the estimator its citing sentence names, written out from the standard model,
with every assumption stated so that it can be checked against the reference:

* Superpopulation: the size of population class j is Poisson, F_j ~ Pois(lambda_j).
* Sampling: each person is in the release with probability alpha (the sampling fraction), so by
  Poisson thinning f_j ~ Pois(alpha lambda_j) and F_j - f_j ~ Pois((1 - alpha) lambda_j),
  independent of f_j.
* Truncation: a class is seen only when f_j >= 1, so the observed f_j follows the
  zero-truncated Poisson, P(f) = mu^f e^-mu / (f! (1 - e^-mu)), mu = alpha lambda_j.
* Estimate: mu_j is the maximum-likelihood estimate from the class's own size, the root of
  mu / (1 - e^-mu) = f_j (mean of the truncated distribution = the observation); it is 0 for
  f_j = 1 (the likelihood mu e^-mu / (1 - e^-mu) decreases in mu) and tends to f_j for large
  f_j. Then F_j is estimated by its conditional expectation
  E[F_j | f_j] = f_j + (1 - alpha) lambda_j = f_j + (1 - alpha) mu_j / alpha.

For large classes this equals the scaling estimate f_j / alpha (El Emam et al. 2011: E(f_j) =
alpha F_j); for small ones it is smaller: a class seen once is estimated at F_j = 1 (risk 1),
one seen twice at 10% at 16.3 instead of 20. The scaling estimate is biased upwards for small
sample classes (a class that shows up once in a 10% sample is more often a small population
class than a class of 10), so it under-states the share of records at risk; the truncation
correction removes most of that bias (measured in tests/unit/test_truncated_poisson.py and
docs/population-estimation.md).
"""

from __future__ import annotations

import math
import numbers

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dbt_deid.errors import ConfigError

#: The two estimators of F_j from the sample class size f_j (setting ``population_estimator``).
ESTIMATORS = ("scaling", "truncated_poisson")

_ITERATIONS = 60


def _fraction(alpha: float) -> float:
    ok = isinstance(alpha, numbers.Real) and not isinstance(alpha, bool)
    if not ok or not 0 < alpha <= 1 or math.isnan(alpha):
        raise ConfigError(f"sampling fraction alpha must be a number in (0, 1], got {alpha!r}")
    return float(alpha)


def _estimator(name: str) -> str:
    if name not in ESTIMATORS:
        raise ConfigError(
            f"population_estimator must be one of {', '.join(ESTIMATORS)}, got {name!r}"
        )
    return name


def truncated_poisson_mean(sizes: ArrayLike) -> NDArray[np.float64]:
    """Per class, the maximum-likelihood mean mu of a zero-truncated Poisson from one
    observation f >= 1: the root of mu / (1 - e^-mu) = f (0 for f = 1).

    Solved by Newton's method on g(mu) = mu - f (1 - e^-mu) from mu = f, where g is convex and
    positive, so the iterates decrease monotonically to the positive root.
    """
    f = np.asarray(sizes, dtype=float)
    if f.size and (not np.isfinite(f).all() or f.min() < 1):
        raise ConfigError("sample class sizes must be finite and >= 1 (classes seen in the sample)")
    mu = f.copy()
    live = f > 1
    for _ in range(_ITERATIONS):
        e = np.exp(-mu[live])
        g = mu[live] - f[live] * (1.0 - e)
        mu[live] = mu[live] - g / (1.0 - f[live] * e)
    mu[~live] = 0.0
    return mu


def estimate_population_sizes(
    sample_sizes: ArrayLike, sampling_fraction: float, estimator: str = "scaling"
) -> NDArray[np.float64]:
    """F_j estimated from the sample class sizes f_j (>= 1) and the sampling fraction alpha.

    ``scaling``: f_j / alpha (El Emam et al. 2011, E(f_j) = alpha F_j; El Emam et al. 2012 eq.
    3). ``truncated_poisson``: f_j + (1 - alpha) mu_j / alpha with mu_j from
    :func:`truncated_poisson_mean` (El Emam and Dankar 2008, as cited by El Emam et al. 2012).
    """
    alpha = _fraction(sampling_fraction)
    f = np.asarray(sample_sizes, dtype=float)
    if _estimator(estimator) == "scaling":
        if f.size and (not np.isfinite(f).all() or f.min() < 1):
            raise ConfigError("sample class sizes must be finite and >= 1")
        return f / alpha
    return f + (1.0 - alpha) * truncated_poisson_mean(f) / alpha


def k_for_population_threshold(
    population_threshold: int, sampling_fraction: float, estimator: str = "scaling"
) -> int:
    """The smallest sample class size f whose estimated population class is at least F_j.

    ``scaling`` gives ceil(alpha F_j), El Emam et al. 2012 equation 3 (F_j = 20, alpha = 0.2 ->
    k = 4). ``truncated_poisson`` gives the smallest f with f + (1 - alpha) mu(f) / alpha >= F_j
    (F_j = 20: alpha = 0.2 -> 5, alpha = 0.1 -> 3), never below 1 nor above F_j.
    """
    alpha = _fraction(sampling_fraction)
    if (
        isinstance(population_threshold, bool)
        or not isinstance(population_threshold, int)
        or population_threshold < 1
    ):
        raise ConfigError(
            f"population threshold F_j must be an integer >= 1, got {population_threshold!r}"
        )
    if _estimator(estimator) == "scaling":
        # round before ceil so 0.2 * 20 = 4.000000000000001 gives 4
        return max(1, math.ceil(round(alpha * population_threshold, 9)))
    sizes = np.arange(1, population_threshold + 1, dtype=float)
    est = estimate_population_sizes(sizes, alpha, estimator)
    ok = np.flatnonzero(est >= population_threshold - 1e-9)
    return int(sizes[ok[0]]) if ok.size else population_threshold


__all__ = [
    "ESTIMATORS",
    "estimate_population_sizes",
    "k_for_population_threshold",
    "truncated_poisson_mean",
]
