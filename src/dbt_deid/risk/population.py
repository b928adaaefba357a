"""Journalist and marketer risk against a population, and the registry-matching measure.

Notation of El Emam et al. 2011 ("Possible Re-identification Attacks", Figure 1): f_j is the size of
equivalence class j in the release (sample), F_j (written C_j in equations 1-3) its size in the
population, n the release size, N the population size and alpha = n/N the sampling fraction.

* Journalist risk: the intruder does not know who is in the release; the record risk is 1/F_j.
  The release risk is max 1/F_j = 1/min F_j over the released classes; the share of records
  above tau is the share in classes with F_j < k = ceil(1/tau).
* Marketer risk, El Emam et al. 2011 equation 2: matching *all* released records against a registry
  correctly links at most sum_j f_j / C_j records (we also report it divided by n). With
  f_j = alpha C_j this becomes equation 3: sum_j alpha C_j / C_j = |Q| alpha, |Q| being the
  number of population classes.
* Registry matching, El Emam et al. 2011 equation 1: for a region (province) p of population N_p,
the share
  of the population whose registry-match probability 1/C_j exceeds tau,
  (1/N_p) sum_j C_j I(1/C_j > tau), classes formed within the region.

With a sampling fraction instead of a population table, F_j is estimated by f_j / alpha (its
expectation under simple random sampling, El Emam et al. 2011: E(f_j) = alpha F_j), or, with
``estimator="truncated_poisson"``, by the truncated-Poisson estimator that El Emam et al. 2012
cite (El Emam and Dankar 2008; :mod:`dbt_deid.truncated_poisson`).

A suppressed cell in the release matches every population value (wildcard), so the population
size of a released pattern is the total of the population classes consistent with it.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from dbt_deid.errors import ConfigError, DataError
from dbt_deid.progress import Logger, get_logger
from dbt_deid.risk._common import COUNT_COLUMN, check_qi, record_counts
from dbt_deid.risk.prosecutor import RiskStats, risk_stats
from dbt_deid.tau import above_tau, k_from_tau
from dbt_deid.truncated_poisson import estimate_population_sizes
from dbt_deid.verify import class_sizes

_NULL = "\x00<suppressed>"


def population_class_sizes(
    published: pd.DataFrame,
    population: pd.DataFrame,
    qi: Sequence[str],
    population_counts: np.ndarray | None = None,
) -> np.ndarray:
    """F_j for every released row: population records consistent with the row's values.

    A suppressed (null) cell of ``published`` matches any population value; the population table
    must have no nulls on ``qi``. Returns 0 where no population record matches.
    """
    cols = list(qi)
    w = (np.ones(len(population), np.int64) if population_counts is None
         else np.asarray(population_counts, np.int64))
    if population[cols].isna().to_numpy().any():
        raise DataError("population table has null quasi-identifier cells")
    pop = population[cols].astype(object).reset_index(drop=True).assign(_w=w)
    pub = published[cols].reset_index(drop=True)
    mask = pub.isna().to_numpy()
    out = np.zeros(len(pub), dtype=np.int64)
    mask_ids, inverse = np.unique(mask, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    for m_i, m in enumerate(mask_ids):
        rows = np.flatnonzero(inverse == m_i)
        keep = [c for c, s in zip(cols, m, strict=True) if not s]
        if not keep:
            out[rows] = int(w.sum())
            continue
        sums = pop.groupby(keep, sort=False)["_w"].sum().rename("_F")
        part = pub.loc[rows, keep].astype(object)
        merged = part.merge(sums, left_on=keep, right_index=True, how="left")
        out[rows] = merged["_F"].fillna(0).to_numpy(dtype=np.int64)
    return out


@dataclass(frozen=True)
class PopulationRisk:
    """Journalist and marketer risk of a release (El Emam et al. 2011 equations 2-3)."""

    source: str  # "population table" or "sampling fraction"
    tau: float
    k: int
    n_records: int
    population_size: float
    sampling_fraction: float
    journalist: RiskStats
    marketer_expected_matches: float
    marketer_risk: float
    population_classes: int | None
    marketer_bound: float | None
    classes_missing_from_population: int
    population_class_size: np.ndarray

    def to_dict(self) -> dict[str, Any]:
        j = self.journalist
        return {
            "source": self.source,
            "population_size": self.population_size,
            "sampling_fraction": self.sampling_fraction,
            "journalist_max_risk": j.max_risk,
            "journalist_records_above_tau": j.records_above_tau,
            "journalist_share_above_tau": j.share_above_tau,
            "smallest_population_class": j.smallest_class,
            "marketer_expected_matches": self.marketer_expected_matches,
            "marketer_risk": self.marketer_risk,
            "population_classes": self.population_classes,
            "marketer_bound_q_alpha": self.marketer_bound,
            "classes_missing_from_population": self.classes_missing_from_population,
        }


def marketer_bound(n_population_classes: int, sampling_fraction: float) -> float:
    """El Emam et al. 2011 equation 3: |Q| alpha, the expected number of correct registry
    matches."""
    if n_population_classes < 0:
        raise ConfigError("the number of population classes |Q| must be >= 0")
    _check_fraction(sampling_fraction)
    return float(n_population_classes) * float(sampling_fraction)


def _check_fraction(alpha: float) -> float:
    ok = isinstance(alpha, numbers.Real) and not isinstance(alpha, bool)
    if not ok or not 0 < alpha <= 1 or math.isnan(alpha):
        raise ConfigError(f"sampling fraction must be a number in (0, 1], got {alpha!r}")
    return float(alpha)


def _check_population_size(population_size: float, n_records: int) -> float:
    ok = isinstance(population_size, numbers.Real) and not isinstance(population_size, bool)
    if not ok or not population_size >= n_records:
        raise ConfigError(
            f"population size must be a number >= the {n_records} released records,"
            f" got {population_size!r}"
        )
    return float(population_size)


def resolve_sampling(
    n_records: int, sampling_fraction: float | None, population_size: float | None
) -> tuple[float, float]:
    """(alpha, N) from either the sampling fraction or the population size (N >= n)."""
    if population_size is not None:
        big_n = _check_population_size(population_size, n_records)
        alpha = n_records / big_n
        if sampling_fraction is not None:
            given = _check_fraction(sampling_fraction)
            if abs(given - alpha) > 1e-3 * alpha + 0.5 / big_n:
                raise ConfigError(
                    f"sampling fraction {given} disagrees with n/N = {n_records}/{big_n:g}"
                )
        return alpha, big_n
    if sampling_fraction is not None:
        alpha = _check_fraction(sampling_fraction)
        return alpha, n_records / alpha
    raise ConfigError("give a population table, a sampling fraction or a population size")


def population_risk(
    published: pd.DataFrame,
    qi: Sequence[str],
    tau: float,
    *,
    count_column: str | None = COUNT_COLUMN,
    population: pd.DataFrame | None = None,
    population_count_column: str | None = COUNT_COLUMN,
    sampling_fraction: float | None = None,
    population_size: float | None = None,
    estimator: str = "scaling",
    logger: Logger | None = None,
) -> PopulationRisk:
    """Journalist risk (1/F_j) and marketer risk (El Emam et al. 2011 eq. 2; eq. 3 bound |Q| alpha).

    Give either ``population`` (a census-like pattern table on ``qi`` with counts in
    ``population_count_column``) or the sampling fraction / population size; with the latter,
    ``estimator`` says how F_j is estimated from f_j (``scaling``: f_j / alpha;
    ``truncated_poisson``: :func:`dbt_deid.truncated_poisson.estimate_population_sizes`).
    """
    log = logger or get_logger()
    cols = check_qi(published, qi)
    k = k_from_tau(tau)
    w = record_counts(published, count_column)
    n = int(w.sum())
    f = class_sizes(published, cols, w).astype(float)
    missing = 0
    if population is not None:
        check_qi(population, cols, "population table")
        pw = record_counts(population, population_count_column, "population table")
        big_f = population_class_sizes(published, population, cols, pw).astype(float)
        short = big_f < f
        if short.any():
            # a released class larger than its population class: inconsistent frames
            missing = int(len(published.loc[short, cols].astype(object)
                              .where(published.loc[short, cols].notna(), _NULL)
                              .drop_duplicates()))
            log.info(f"dbt_deid risk: {missing} released classes are larger than their"
                     " population class; using F_j = f_j for them")
            big_f = np.maximum(big_f, f)
        n_pop = float(pw.sum())
        if n_pop < n:
            raise DataError(f"population table has {int(n_pop)} records, fewer than the"
                            f" {n} released")
        alpha = n / n_pop
        n_q = int(len(population[cols].drop_duplicates()))
        source = "population table"
    else:
        alpha, n_pop = resolve_sampling(n, sampling_fraction, population_size)
        big_f = estimate_population_sizes(f, alpha, estimator)
        n_q = None
        source = ("sampling fraction" if estimator == "scaling"
                  else "sampling fraction (truncated Poisson)")
    journalist = risk_stats(big_f, w, tau)
    # smallest population class can be fractional when estimated (f/alpha)
    expected = float((w * (1.0 / big_f)).sum())  # sum over classes of f_j / F_j (eq. 2)
    return PopulationRisk(
        source=source, tau=float(tau), k=k, n_records=n, population_size=n_pop,
        sampling_fraction=alpha, journalist=journalist,
        marketer_expected_matches=expected, marketer_risk=expected / n,
        population_classes=n_q,
        marketer_bound=None if n_q is None else marketer_bound(n_q, alpha),
        classes_missing_from_population=missing, population_class_size=big_f,
    )


def registry_match_risk(
    population: pd.DataFrame,
    qi: Sequence[str],
    region: str,
    tau: float,
    *,
    count_column: str | None = COUNT_COLUMN,
) -> pd.DataFrame:
    """El Emam et al. 2011 equation 1 per region: (1/N_p) sum_j C_j I(1/C_j > tau).

    ``population`` is a registry/census pattern table with the ``region`` column and the
    matching QIs (e.g. age and sex). Returns one row per region: ``region``, ``population``
    (N_p), ``classes``, ``at_risk`` (population in classes with 1/C_j > tau) and ``share``.
    """
    cols = [c for c in check_qi(population, qi, "population table") if c != region]
    check_qi(population, [region], "population table")
    k_from_tau(tau)  # tau in (0, 1]
    w = record_counts(population, count_column, "population table")
    if population[cols + [region]].isna().to_numpy().any():
        raise DataError("population table has null region or quasi-identifier cells")
    frame = population[[region] + cols].astype(object).assign(_w=w)
    classes = frame.groupby([region] + cols, sort=True)["_w"].sum().reset_index()
    risky = above_tau(classes["_w"].to_numpy(dtype=float), tau)  # 1/C_j > tau
    classes["_risky"] = np.where(risky, classes["_w"], 0)
    out = classes.groupby(region, sort=True).agg(
        population=("_w", "sum"), classes=("_w", "size"), at_risk=("_risky", "sum")
    ).reset_index()
    out["share"] = out["at_risk"] / out["population"]
    return out.rename(columns={region: "region"})
