"""tau, k and the sampling fraction: the one definition of the class-size threshold.

El Emam et al. 2011 (discharge PUMF), "Measuring the Probability of Re-identification": tau is
the largest acceptable probability of re-identifying a record; a record in a class of f records
has risk 1/f, so the smallest acceptable class is k = ceil(1/tau). El Emam et al. 2012 (HHP
claims), equation 3: when the release is a sample with sampling fraction alpha of a population
whose classes must have at least F_j people, k = ceil(alpha F_j). The SQL side computes the same
in ``macros/config/release_config.sql``.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from dbt_deid.errors import ConfigError
from dbt_deid.truncated_poisson import k_for_population_threshold

#: Tolerance of the "risk above tau" comparison (1/0.2 is 5.000000000000001 in floating point).
TOLERANCE = 1e-9


def check_tau(tau: float) -> float:
    """tau must be a number in (0, 1]; returned as a float."""
    if not isinstance(tau, (int, float)) or isinstance(tau, bool) or not 0 < tau <= 1:
        raise ConfigError(f"tau must be a number in (0, 1], got {tau!r}")
    return float(tau)


def k_from_tau(tau: float) -> int:
    """k = ceil(1/tau), the smallest class size whose risk 1/k is at most tau."""
    # round before ceil: 1/0.2 = 5.000000000000001 gives 5
    return math.ceil(round(1.0 / check_tau(tau), 9))


def above_tau(sizes: ArrayLike, tau: float) -> NDArray[np.bool_]:
    """Per class, whether its risk 1/f exceeds tau. For whole sizes this is f < k_from_tau(tau);
    the comparison is f * tau < 1 (with :data:`TOLERANCE`) so estimated, fractional sizes
    (a population class estimated as f / alpha) work too."""
    return np.asarray(sizes, dtype=float) * tau < 1.0 - TOLERANCE


def k_from_population(
    population_threshold: int, sampling_fraction: float, estimator: str = "scaling"
) -> int:
    """El Emam et al. 2012 (HHP claims), equation 3: k = alpha * F_j.

    The risk to manage is 1/F_j, with F_j the smallest equivalence class size allowed in the
    *population* (e.g. F_j = 20 for a 0.05 risk). The data set is a sample with sampling
    fraction alpha, and the paper makes the *large-sample assumption* f_j = alpha * F_j: a
    population class of size F_j shows up in the sample with about alpha * F_j records. This
    holds only for large classes and large samples; for small sampling fractions the paper uses
    a truncated-Poisson estimator of F_j (its ref. 28, El Emam and Dankar 2008):
    ``estimator="truncated_poisson"`` gives the smallest sample class whose estimate reaches
    F_j (:mod:`dbt_deid.truncated_poisson`). With ``scaling`` the product is rounded up (a
    class of alpha * F_j records must be kept whole), never below 1; example from the paper:
    F_j = 20, alpha = 0.2 -> k = 4 (5 with the truncated-Poisson estimator).
    """
    return k_for_population_threshold(population_threshold, sampling_fraction, estimator)


__all__ = ["TOLERANCE", "above_tau", "check_tau", "k_from_population", "k_from_tau"]
