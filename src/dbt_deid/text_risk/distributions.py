"""Monte Carlo distributions of the probability of re-identification, equations 20-21.

Section 2.3.8: weights and recalls are proportions, approximated by normal distributions
(``W_i ~ N(w_i, sqrt(w_i (1 - w_i) / n))``, ``R_i ~ N(r_i, sqrt(r_i (1 - r_i) / s_i))``,
``R_q ~ N(r_q, sqrt(r_q (1 - r_q) / s_q))``); the counts are Poisson (``N_q ~ Pois(n_q)``,
``M ~ Pois(m)``); ``Pr(attempt)`` is ``A ~ Triang(a, b, c)`` for a non-public release (1 for a
public one). The 95% interval is read off the empirical distribution (2.5th and 97.5th
percentiles).

Implementation choices (not in the paper): normal draws are clipped to ``[0, 1]`` so that every
draw is a probability; which terms get the HIPS factor ``h`` is decided on the *observed* recall
(``r_i >= 0.9``, ``r_q >= 0.7``), exactly as the index sets of equations 20-21 are written.
All draws come from a seeded :class:`numpy.random.Generator`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from dbt_deid.errors import ConfigError
from dbt_deid.text_risk.counting import QuasiMeasures
from dbt_deid.text_risk.probabilities import (
    DEFAULT_H,
    DIRECT_CUTOFF,
    QUASI_CUTOFF,
    prob_at_least_two,
    quasi_instance_leak,
)

DEFAULT_ITERATIONS = 100_000


@dataclass(frozen=True)
class Triangular:
    """``Triang(low, mode, high)`` of ``Pr(attempt)`` (section 2.3.8), all in ``[0, 1]``."""

    low: float
    mode: float
    high: float

    def __post_init__(self) -> None:
        if not (0.0 <= self.low <= self.mode <= self.high <= 1.0):
            raise ConfigError(
                f"Pr(attempt) triangular needs 0 <= low <= mode <= high <= 1, got"
                f" ({self.low}, {self.mode}, {self.high})"
            )

    @property
    def mean(self) -> float:
        """``(a + b + c) / 3``: the value a point estimate uses."""
        return (self.low + self.mode + self.high) / 3.0

    def sample(self, rng: np.random.Generator, size: int) -> NDArray[np.float64]:
        """``size`` draws; a degenerate distribution (``low == high``) is a constant."""
        if self.low == self.high:
            return np.full(size, self.low)
        return rng.triangular(self.low, self.mode, self.high, size)


def attempt_mean(attempt: Triangular | None) -> float:
    """``E[A]``: 1 for a public release (``None``), else the triangular mean (eqs. 18-19)."""
    return 1.0 if attempt is None else attempt.mean


def _attempt_draws(
    attempt: Triangular | None, rng: np.random.Generator, size: int
) -> NDArray[np.float64]:
    return np.ones(size) if attempt is None else attempt.sample(rng, size)


@dataclass(frozen=True)
class Interval:
    """Summary of a sampled distribution: mean and the central ``level`` interval."""

    mean: float
    lower: float
    upper: float
    level: float = 0.95

    def as_dict(self) -> dict[str, float]:
        return {"mean": self.mean, "lower": self.lower, "upper": self.upper, "level": self.level}


def interval(samples: NDArray[np.float64], level: float = 0.95) -> Interval:
    """Mean and central interval (``(1 - level) / 2`` and ``(1 + level) / 2`` quantiles)."""
    if not 0.0 < level < 1.0:
        raise ConfigError(f"interval level must be in (0, 1), got {level}")
    x = np.asarray(samples, dtype=float)
    lo, hi = np.quantile(x, [(1.0 - level) / 2.0, (1.0 + level) / 2.0])
    return Interval(float(x.mean()), float(lo), float(hi), level)


def _check_iterations(iterations: int) -> None:
    if iterations < 1:
        raise ConfigError(f"iterations must be at least 1, got {iterations}")


def _normal(
    rng: np.random.Generator, mean: NDArray[np.float64], var: NDArray[np.float64], size: int
) -> NDArray[np.float64]:
    """Draws of shape ``(size, len(mean))`` clipped to ``[0, 1]``."""
    sd = np.sqrt(np.maximum(var, 0.0))
    draws = rng.normal(mean[None, :], sd[None, :], (size, len(mean)))
    return np.clip(draws, 0.0, 1.0)


def simulate_direct(
    measures: pd.DataFrame,
    n: int,
    *,
    h: float = DEFAULT_H,
    cutoff: float | None = DIRECT_CUTOFF,
    attempt: Triangular | None = None,
    iterations: int = DEFAULT_ITERATIONS,
    rng: np.random.Generator,
) -> NDArray[np.float64]:
    """Draws of the direct-identifier probability of re-identification, equation 20.

    ``(1 - prod_{r_i >= 0.9} (1 - h W_i (1 - R_i)) prod_{r_i < 0.9} (1 - W_i (1 - R_i))) * A``
    with ``W_i ~ N(w_i, sqrt(w_i (1 - w_i) / n))``, ``R_i ~ N(r_i, sqrt(r_i (1 - r_i) / s_i))``,
    ``A ~ Triang(a, b, c)``. ``measures`` is :func:`~dbt_deid.text_risk.counting.direct_measures`
    (columns ``s, w, r``). No direct identifier type gives zeros.
    """
    _check_iterations(iterations)
    attempt_draws = _attempt_draws(attempt, rng, iterations)
    if len(measures) == 0:
        return np.zeros(iterations)
    w = measures["w"].to_numpy(dtype=float)
    r = measures["r"].to_numpy(dtype=float)
    s = measures["s"].to_numpy(dtype=float)
    big_w = _normal(rng, w, w * (1.0 - w) / n, iterations)
    big_r = _normal(rng, r, r * (1.0 - r) / s, iterations)
    factor = np.full_like(r, h) if cutoff is None else np.where(r >= cutoff, h, 1.0)
    keep = np.prod(1.0 - factor[None, :] * big_w * (1.0 - big_r), axis=1)
    return (1.0 - keep) * attempt_draws


def simulate_quasi(
    measures: QuasiMeasures,
    *,
    h: float = DEFAULT_H,
    cutoff: float | None = QUASI_CUTOFF,
    attempt: Triangular | None = None,
    iterations: int = DEFAULT_ITERATIONS,
    rng: np.random.Generator,
    poisson_counts: bool = True,
) -> NDArray[np.float64]:
    """Draws of the quasi-identifier probability of re-identification, equation 21.

    ``Pr(X >= 2 if r_q >= 0.7, or Y >= 2 if r_q < 0.7) * A`` with
    ``X ~ B(N_q, h (1 - R_q^M))``, ``Y ~ B(N_q, 1 - R_q^M)``,
    ``R_q ~ N(r_q, sqrt(r_q (1 - r_q) / s_q))``, ``N_q ~ Pois(n_q)``, ``M ~ Pois(m)``,
    ``A ~ Triang(a, b, c)``. Each draw computes ``Pr(X >= 2)`` exactly for the sampled
    parameters. ``poisson_counts=False`` fixes ``N_q = n_q`` and ``M = m`` (a sensitivity check
    beyond the paper; with zero recall variance it reproduces equation 17 exactly).
    """
    _check_iterations(iterations)
    attempt_draws = _attempt_draws(attempt, rng, iterations)
    if not measures.present:
        return np.zeros(iterations)
    r_q = measures.r_q
    big_r = _normal(
        rng, np.array([r_q]), np.array([r_q * (1.0 - r_q) / measures.s_q]), iterations
    )[:, 0]
    if poisson_counts:
        big_n = rng.poisson(measures.n_q, iterations).astype(float)
        big_m = rng.poisson(measures.m, iterations).astype(float)
    else:
        big_n = np.full(iterations, measures.n_q)
        big_m = np.full(iterations, measures.m)
    factor = h if cutoff is None or r_q >= cutoff else 1.0
    p = factor * quasi_instance_leak(big_r, big_m)
    return prob_at_least_two(big_n, p) * attempt_draws
