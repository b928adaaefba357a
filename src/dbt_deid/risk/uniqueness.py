"""Sample and population uniqueness (El Emam et al. 2010 "Estimating Uniqueness").

Notation: the release is a sample of n records from a population of N (sampling fraction
f = n/N); f_j are the sample class sizes, u = |J| the number of sample classes and
n_i = #{j : f_j = i} the frequency of frequencies (n_1 = sample uniques).

Sample uniqueness is n_1 / n. Population uniqueness (the share of the population unique on the
QIs) is estimated by:

* **Zayatz** (Zayatz 1991, used by El Emam et al. 2010; form as in Chen & Keller-McNulty 1998 and
Dankar,
  El Emam et al. 2012): assuming the population class-size distribution matches the sample's,

      P(F=1 | f=1) = (n_1/u) P(1|1) / sum_i (n_i/u) P(1|i),
      P(1|i) = i C(N-i, n-1) / C(N, n)          (hypergeometric: one of i drawn),

  and the population uniques are U = n_1 P(F=1 | f=1) / f (sample uniques that are population
  uniques, scaled up by 1/f).

* **Pitman** (Hoshino 2001; Dankar, El Emam et al. 2012, "Estimating the re-identification risk
  of clinical data sets"): the partition of the sample follows the Pitman (Ewens-Pitman) sampling
  formula with theta > -alpha, 0 <= alpha < 1,

      P(partition) = [prod_{i=1}^{u-1} (theta + i alpha)] / (theta + 1)_{n-1}
                     * prod_j (1 - alpha)_{f_j - 1}       ((x)_m rising factorial),

  (theta, alpha) are its maximum-likelihood estimates and the population uniques are the
  expected number of singletons in a population of N under that model,

      E[U_N] = N Gamma(theta + 1) Gamma(theta + alpha + N - 1)
               / (Gamma(theta + alpha) Gamma(theta + N)),

  whose large-N form is Hoshino's Gamma(theta + 1) / Gamma(theta + alpha) N^alpha.

* **Selection rule** (Dankar et al. 2012, without the SNB model, as in ARX): Zayatz when the
  sample has uniques but no class of size 2; otherwise Pitman when f <= 0.1 and Zayatz when
  f > 0.1, each falling back to the other when it fails.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from dbt_deid.errors import DataError
from dbt_deid.risk._common import COUNT_COLUMN, check_qi, record_counts
from dbt_deid.risk.population import resolve_sampling

PITMAN_MAX_FRACTION = 0.1  # Dankar et al. 2012: Pitman for sampling fractions up to 10%


def frequency_of_frequencies(sizes: Sequence[int] | np.ndarray) -> dict[int, int]:
    """{i: n_i}: the number of classes of each size, from one size per class."""
    arr = np.asarray(sizes, dtype=np.int64)
    if arr.size == 0 or (arr <= 0).any():
        raise DataError("class sizes must be positive and there must be at least one class")
    values, counts = np.unique(arr, return_counts=True)
    return {int(v): int(c) for v, c in zip(values, counts, strict=True)}


def _log_comb(a: float, b: float) -> float:
    return math.lgamma(a + 1) - math.lgamma(b + 1) - math.lgamma(a - b + 1)


def hypergeom_one(population_size: int, size: int, sample_size: int) -> float:
    """P(1 | i): exactly one of a population class of ``size`` is among ``sample_size`` drawn
    without replacement from ``population_size`` = i C(N - i, n - 1) / C(N, n)."""
    big_n, i, n = int(population_size), int(size), int(sample_size)
    if i < 1 or n < 1 or i > big_n or n > big_n or big_n - i < n - 1:
        return 0.0
    return math.exp(math.log(i) + _log_comb(big_n - i, n - 1) - _log_comb(big_n, n))


def zayatz_population_uniques(sizes: Sequence[int] | np.ndarray, population_size: float) -> float:
    """Zayatz (1991) estimate of the number of population uniques (module docstring)."""
    freq = frequency_of_frequencies(sizes)
    n = sum(i * c for i, c in freq.items())
    big_n = int(round(population_size))
    if big_n < n:
        raise DataError(f"population size {big_n} is smaller than the sample size {n}")
    n1 = freq.get(1, 0)
    if n1 == 0:
        return 0.0
    u = sum(freq.values())
    denom = sum((c / u) * hypergeom_one(big_n, i, n) for i, c in freq.items())
    p11 = (n1 / u) * hypergeom_one(big_n, 1, n) / denom
    return n1 * p11 / (n / big_n)


@dataclass(frozen=True)
class PitmanFit:
    """Maximum-likelihood parameters of the Pitman sampling formula."""

    theta: float
    alpha: float
    log_likelihood: float
    converged: bool


def pitman_log_likelihood(
    theta: float, alpha: float, freq: dict[int, int], n: int, u: int
) -> float:
    """Log of the Pitman sampling formula (module docstring) for a sample partition."""
    if not (0.0 <= alpha < 1.0) or theta <= -alpha:
        return -math.inf
    i = np.arange(1, u, dtype=float)
    ll = float(np.log(theta + i * alpha).sum()) if u > 1 else 0.0
    ll -= math.lgamma(theta + n) - math.lgamma(theta + 1)
    base = math.lgamma(1.0 - alpha)
    for s, c in freq.items():
        if s > 1:
            ll += c * (math.lgamma(s - alpha) - base)
    return ll


def _nelder_mead(fun, x0: np.ndarray, step: float = 0.5, tol: float = 1e-10,
                 max_iter: int = 2000) -> tuple[np.ndarray, float, bool]:
    """Minimise ``fun`` over R^2 (deterministic Nelder-Mead)."""
    simplex = [x0, x0 + np.array([step, 0.0]), x0 + np.array([0.0, step])]
    values = [fun(x) for x in simplex]
    for _ in range(max_iter):
        order = np.argsort(values)
        simplex = [simplex[o] for o in order]
        values = [values[o] for o in order]
        if abs(values[-1] - values[0]) <= tol * (1 + abs(values[0])) and np.max(
            np.abs(np.array(simplex[1:]) - simplex[0])
        ) < 1e-8:
            return simplex[0], values[0], True
        centroid = (simplex[0] + simplex[1]) / 2
        xr = centroid + (centroid - simplex[-1])
        fr = fun(xr)
        if fr < values[0]:
            xe = centroid + 2 * (centroid - simplex[-1])
            fe = fun(xe)
            simplex[-1], values[-1] = (xe, fe) if fe < fr else (xr, fr)
        elif fr < values[-2]:
            simplex[-1], values[-1] = xr, fr
        else:
            xc = centroid + 0.5 * (simplex[-1] - centroid)
            fc = fun(xc)
            if fc < values[-1]:
                simplex[-1], values[-1] = xc, fc
            else:
                simplex = [simplex[0] + 0.5 * (x - simplex[0]) for x in simplex]
                values = [values[0]] + [fun(x) for x in simplex[1:]]
    best = int(np.argmin(values))
    return simplex[best], values[best], False


def fit_pitman(sizes: Sequence[int] | np.ndarray) -> PitmanFit:
    """Maximum-likelihood (theta, alpha) of the Pitman sampling formula (Hoshino 2001).

    Parametrised as alpha = 1 / (1 + exp(-a)), theta = -alpha + exp(t) so the search is
    unconstrained; several deterministic starting points, best likelihood kept.
    """
    freq = frequency_of_frequencies(sizes)
    n = sum(i * c for i, c in freq.items())
    u = sum(freq.values())

    def unpack(x: np.ndarray) -> tuple[float, float]:
        a = 1.0 / (1.0 + math.exp(-float(np.clip(x[0], -40, 40))))
        return -a + math.exp(float(np.clip(x[1], -40, 40))), a

    def neg(x: np.ndarray) -> float:
        theta, alpha = unpack(x)
        ll = pitman_log_likelihood(theta, alpha, freq, n, u)
        return -ll if math.isfinite(ll) else 1e300

    best: tuple[np.ndarray, float, bool] | None = None
    for a0 in (-2.0, 0.0, 2.0):
        for t0 in (0.0, math.log(max(u, 1)), math.log(max(n, 1))):
            res = _nelder_mead(neg, np.array([a0, t0]))
            if best is None or res[1] < best[1]:
                best = res
    assert best is not None
    theta, alpha = unpack(best[0])
    return PitmanFit(theta=theta, alpha=alpha, log_likelihood=-best[1], converged=best[2])


def pitman_expected_uniques(theta: float, alpha: float, population_size: float) -> float:
    """E[U_N] under Pitman(theta, alpha): N Gamma(theta+1) Gamma(theta+alpha+N-1) /
    (Gamma(theta+alpha) Gamma(theta+N)) (Hoshino 2001's N^alpha form is its large-N limit)."""
    big_n = float(population_size)
    if alpha <= 0.0 and theta <= 0.0:
        return 0.0
    log_v = (math.log(big_n) + math.lgamma(theta + 1) + math.lgamma(theta + alpha + big_n - 1)
             - math.lgamma(theta + alpha) - math.lgamma(theta + big_n))
    return math.exp(log_v)


def pitman_population_uniques(
    sizes: Sequence[int] | np.ndarray, population_size: float
) -> tuple[float, PitmanFit]:
    """Pitman estimate of the number of population uniques and the fitted parameters."""
    fit = fit_pitman(sizes)
    n = int(np.asarray(sizes).sum())
    if population_size < n:
        raise DataError(f"population size {population_size} is smaller than the sample size {n}")
    return pitman_expected_uniques(fit.theta, fit.alpha, population_size), fit


@dataclass(frozen=True)
class UniquenessEstimate:
    """Sample uniqueness and population-uniqueness estimates (shares of records/population)."""

    n_records: int
    n_classes: int
    sample_uniques: int
    sample_uniqueness: float
    sampling_fraction: float
    population_size: float
    zayatz_uniques: float
    pitman_uniques: float | None
    pitman: PitmanFit | None
    method: str
    population_uniques: float

    @property
    def zayatz_uniqueness(self) -> float:
        return self.zayatz_uniques / self.population_size

    @property
    def pitman_uniqueness(self) -> float | None:
        return None if self.pitman_uniques is None else self.pitman_uniques / self.population_size

    @property
    def population_uniqueness(self) -> float:
        return self.population_uniques / self.population_size

    def to_dict(self) -> dict[str, Any]:
        return {
            "records": self.n_records,
            "classes": self.n_classes,
            "sample_uniques": self.sample_uniques,
            "sample_uniqueness": self.sample_uniqueness,
            "sampling_fraction": self.sampling_fraction,
            "population_size": self.population_size,
            "zayatz_population_uniques": self.zayatz_uniques,
            "zayatz_population_uniqueness": self.zayatz_uniqueness,
            "pitman_population_uniques": self.pitman_uniques,
            "pitman_population_uniqueness": self.pitman_uniqueness,
            "pitman_theta": None if self.pitman is None else self.pitman.theta,
            "pitman_alpha": None if self.pitman is None else self.pitman.alpha,
            "selected_method": self.method,
            "population_uniqueness": self.population_uniqueness,
        }


def _plausible(value: float | None, big_n: float) -> bool:
    return value is not None and math.isfinite(value) and 0.0 <= value <= big_n


def uniqueness_from_sizes(
    sizes: Sequence[int] | np.ndarray,
    *,
    sampling_fraction: float | None = None,
    population_size: float | None = None,
) -> UniquenessEstimate:
    """All estimators from one size per sample class, plus the Dankar et al. selection."""
    arr = np.asarray(sizes, dtype=np.int64)
    freq = frequency_of_frequencies(arr)
    n = int(arr.sum())
    alpha, big_n = resolve_sampling(n, sampling_fraction, population_size)
    n1 = freq.get(1, 0)
    zay = zayatz_population_uniques(arr, big_n)
    pit: float | None = None
    fit: PitmanFit | None = None
    if n1 > 0 and len(freq) > 1 and alpha < 1.0:
        pit, fit = pitman_population_uniques(arr, big_n)
    if n1 == 0:
        method, value = "none (no sample uniques)", 0.0
    elif alpha >= 1.0:
        method, value = "census (sample is the population)", float(n1)
    elif 2 not in freq or alpha > PITMAN_MAX_FRACTION:
        method, value = "zayatz", zay
        if not _plausible(zay, big_n) and _plausible(pit, big_n):
            method, value = "pitman", float(pit)  # type: ignore[arg-type]
    elif _plausible(pit, big_n):
        method, value = "pitman", float(pit)  # type: ignore[arg-type]
    else:
        method, value = "zayatz", zay
    return UniquenessEstimate(
        n_records=n, n_classes=int(arr.size), sample_uniques=n1, sample_uniqueness=n1 / n,
        sampling_fraction=alpha, population_size=big_n, zayatz_uniques=zay,
        pitman_uniques=pit, pitman=fit, method=method, population_uniques=value,
    )


def estimate_uniqueness(
    published: pd.DataFrame,
    qi: Sequence[str],
    *,
    count_column: str | None = COUNT_COLUMN,
    sampling_fraction: float | None = None,
    population_size: float | None = None,
) -> UniquenessEstimate:
    """Uniqueness of a pattern table (suppressed value = its own category)."""
    cols = check_qi(published, qi)
    w = record_counts(published, count_column)
    keys = published[cols].astype(object).where(published[cols].notna(), "\x00<suppressed>")
    sizes = pd.Series(w).groupby([keys[c].to_numpy() for c in cols]).sum().to_numpy()
    return uniqueness_from_sizes(
        sizes, sampling_fraction=sampling_fraction, population_size=population_size
    )


__all__ = [
    "PitmanFit", "UniquenessEstimate", "estimate_uniqueness", "fit_pitman",
    "frequency_of_frequencies", "hypergeom_one", "pitman_expected_uniques",
    "pitman_log_likelihood", "pitman_population_uniques", "uniqueness_from_sizes",
    "zayatz_population_uniques",
]
