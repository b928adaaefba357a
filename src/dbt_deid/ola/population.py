"""k from a population threshold and a sampling fraction (seed 001, equation 3)."""

from __future__ import annotations

import math

from dbt_deid.errors import ConfigError


def k_from_population(population_threshold: int, sampling_fraction: float) -> int:
    """Seed 001 equation 3: k = alpha * F_j.

    The risk to manage is 1/F_j, with F_j the smallest equivalence class size allowed in the
    *population* (e.g. F_j = 20 for a 0.05 risk). The data set is a sample with sampling
    fraction alpha, and the paper makes the *large-sample assumption* f_j = alpha * F_j: a
    population class of size F_j shows up in the sample with about alpha * F_j records. This
    holds only for large classes and large samples; for small sampling fractions a better
    estimate of F_j (e.g. a truncated-Poisson estimator, seed 001 ref. 28) should be used. The
    product is rounded up (a class of alpha * F_j records must be kept whole), never below 1;
    example from the paper: F_j = 20, alpha = 0.2 -> k = 4.
    """
    if (
        isinstance(population_threshold, bool)
        or not isinstance(population_threshold, int)
        or population_threshold < 1
    ):
        raise ConfigError(
            f"population threshold F_j must be an integer >= 1, got {population_threshold!r}"
        )
    ok = isinstance(sampling_fraction, (int, float)) and not isinstance(sampling_fraction, bool)
    if not ok or not 0 < sampling_fraction <= 1:
        raise ConfigError(f"sampling fraction alpha must be in (0, 1], got {sampling_fraction!r}")
    # round before ceil so 0.2 * 20 = 4.000000000000001 gives 4
    return max(1, math.ceil(round(sampling_fraction * population_threshold, 9)))
