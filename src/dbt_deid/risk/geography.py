"""Small geographic areas: El Emam et al. 2010's logistic models of population uniqueness.

El Emam et al. 2010 (El Emam et al. 2010, "A method for managing re-identification risk from small
geographic areas in Canada") fits, on 2001 census data for urban Canadian forward sortation
areas (FSAs), the probability that an area's population uniqueness exceeds 5% or 20% from:

* MaxCombs M, the maximum number of equivalence classes: the product of the QIs' numbers of
  response categories (e.g. age 24 x marital status 5 x schooling 9 x religion 3 = 3,240);
* the area's population S_j.

Both are centred and scaled (equations 1 and 2):

    M' = (M - 59861) / 10000,        S'_j = (S_j - 21120) / 10000,

and an area is high risk when the predicted probability exceeds 0.5 (equations 3 and 4):

    5%:  1 / (1 + exp(-(779.1 + 137.8 M' - 37.3 S'_j - 6.5 M' S'_j))) > 0.5
    20%: 1 / (1 + exp(-(63.3 + 11.8 M' - 6 S'_j - M' S'_j))) > 0.5

The coefficients are those of equations (3) and (4); Table 6 prints the 5% POP coefficient as
-37.35 (equation 3 rounds it to -37.3). The fit covers MaxCombs 6-718,848 and populations
200-78,457 (urban FSAs); outside that range the prediction is an extrapolation and a warning is
logged and returned. The 0% threshold is not modelled by these equations.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from dbt_deid.errors import ConfigError, DataError
from dbt_deid.progress import Logger, get_logger


@dataclass(frozen=True)
class LogisticModel:
    """One of El Emam et al. 2010's models: logit = b0 + bM M' + bS S' + bMS M' S'."""

    threshold: float
    intercept: float
    b_maxcombs: float
    b_population: float
    b_interaction: float
    equation: str


M_CENTRE, S_CENTRE, SCALE = 59861.0, 21120.0, 10000.0  # El Emam et al. 2010 equations (1), (2)
MODELS: dict[float, LogisticModel] = {
    0.05: LogisticModel(0.05, 779.1, 137.8, -37.3, -6.5, "El Emam et al. 2010 equation (3)"),
    0.20: LogisticModel(0.20, 63.3, 11.8, -6.0, -1.0, "El Emam et al. 2010 equation (4)"),
}
FITTED_MAXCOMBS = (6, 718_848)
FITTED_POPULATION = (200, 78_457)
DECISION_CUTOFF = 0.5


def max_combs(categories: Mapping[str, int] | Iterable[int]) -> int:
    """MaxCombs: the product of the QIs' numbers of response categories (El Emam et al. 2010)."""
    values = list(categories.values()) if isinstance(categories, Mapping) else list(categories)
    if not values:
        raise ConfigError("MaxCombs needs the number of categories of at least one QI")
    for v in values:
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool) or v < 1:
            raise ConfigError(f"numbers of categories must be positive integers, got {v!r}")
    return int(math.prod(int(v) for v in values))


def category_counts(
    frame: pd.DataFrame, qi: Sequence[str], exclude: Sequence[Any] = ()
) -> dict[str, int]:
    """Distinct non-null values per QI, leaving out non-specific values such as the missing
    label (El Emam et al. 2010 Table 1 counts exclude missing / not available / other)."""
    out = {}
    drop = set(exclude)
    for c in qi:
        if c not in frame.columns:
            raise DataError(f"table has no column {c!r}; it has {list(frame.columns)}")
        vals = {v for v in frame[c].dropna().tolist() if v not in drop}
        out[c] = len(vals)
    return out


def _model(threshold: float) -> LogisticModel:
    for key, model in MODELS.items():
        if abs(float(threshold) - key) < 1e-12:
            return model
    raise ConfigError(
        f"uniqueness threshold must be 0.05 or 0.2 (El Emam et al. 2010 equations 3-4), got"
        f" {threshold!r};"
        " the 0% threshold is not covered by these models"
    )


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * z))  # numerically stable 1 / (1 + e^-z)


def uniqueness_probability(
    maxcombs: float | np.ndarray, population: float | np.ndarray, threshold: float
) -> np.ndarray:
    """Predicted probability that uniqueness exceeds ``threshold`` (El Emam et al. 2010 eq. 1-4)."""
    model = _model(threshold)
    m = (np.asarray(maxcombs, dtype=float) - M_CENTRE) / SCALE
    s = (np.asarray(population, dtype=float) - S_CENTRE) / SCALE
    logit = (model.intercept + model.b_maxcombs * m + model.b_population * s
             + model.b_interaction * m * s)
    return _sigmoid(logit)


def range_warnings(maxcombs: float, populations: np.ndarray) -> list[str]:
    """Messages for inputs outside the fitted range (no area names: counts only)."""
    out = []
    lo, hi = FITTED_MAXCOMBS
    if not lo <= maxcombs <= hi:
        out.append(f"MaxCombs {int(maxcombs)} is outside the fitted range {lo}-{hi:,}"
                   " (El Emam et al. 2010): the prediction is an extrapolation")
    plo, phi = FITTED_POPULATION
    pops = np.asarray(populations, dtype=float)
    below, above = int((pops < plo).sum()), int((pops > phi).sum())
    if below or above:
        out.append(f"{below} area(s) below {plo} and {above} above {phi:,} people: outside the"
                   " fitted population range (El Emam et al. 2010, urban Canadian FSAs);"
                   " extrapolated")
    return out


@dataclass(frozen=True)
class AreaAssessment:
    """Per-area predictions and flags plus any out-of-range warnings."""

    maxcombs: int
    table: pd.DataFrame = field(repr=False)
    warnings: tuple[str, ...] = ()

    @property
    def flagged_05(self) -> int:
        return int(self.table["flag_05"].sum())

    @property
    def flagged_20(self) -> int:
        return int(self.table["flag_20"].sum())

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "maxcombs": self.maxcombs,
            "areas": int(len(self.table)),
            "flagged_05": self.flagged_05,
            "flagged_20": self.flagged_20,
            "warnings": list(self.warnings),
        }
        if "records" in self.table.columns:
            out["records_in_flagged_05"] = int(self.table.loc[self.table["flag_05"],
                                                              "records"].sum())
            out["records_in_flagged_20"] = int(self.table.loc[self.table["flag_20"],
                                                              "records"].sum())
        return out


def assess_areas(
    areas: pd.DataFrame,
    maxcombs: int,
    *,
    area_column: str = "area",
    population_column: str = "population",
    records_column: str | None = None,
    cutoff: float = DECISION_CUTOFF,
    logger: Logger | None = None,
) -> AreaAssessment:
    """Flag areas whose predicted probability of >5% / >20% uniqueness exceeds ``cutoff``.

    ``areas`` has one row per area with its population (from census tables); optionally the
    number of released records in it (``records_column``). The returned table adds the scaled
    predictors ``m_scaled``/``s_scaled``, ``p_05``/``p_20``, ``flag_05``/``flag_20`` and
    ``in_fitted_range``.
    """
    log = logger or get_logger()
    for c in [area_column, population_column] + ([records_column] if records_column else []):
        if c not in areas.columns:
            raise DataError(f"areas table has no column {c!r}; it has {list(areas.columns)}")
    if not 0 < cutoff < 1:
        raise ConfigError(f"cutoff must be in (0, 1), got {cutoff!r}")
    mc = max_combs([maxcombs])
    pops = pd.to_numeric(areas[population_column], errors="coerce")
    if pops.isna().any() or (pops <= 0).any():
        raise DataError(f"areas column {population_column!r} must hold positive populations")
    pop = pops.to_numpy(dtype=float)
    out = pd.DataFrame({"area": areas[area_column].to_numpy(dtype=object), "population": pop})
    if records_column:
        out["records"] = pd.to_numeric(areas[records_column]).to_numpy(dtype=np.int64)
    out["maxcombs"] = mc
    out["m_scaled"] = (mc - M_CENTRE) / SCALE
    out["s_scaled"] = (pop - S_CENTRE) / SCALE
    out["p_05"] = uniqueness_probability(mc, pop, 0.05)
    out["p_20"] = uniqueness_probability(mc, pop, 0.20)
    out["flag_05"] = out["p_05"] > cutoff
    out["flag_20"] = out["p_20"] > cutoff
    in_range = (FITTED_MAXCOMBS[0] <= mc <= FITTED_MAXCOMBS[1]) & (
        (pop >= FITTED_POPULATION[0]) & (pop <= FITTED_POPULATION[1])
    )
    out["in_fitted_range"] = in_range
    warnings = range_warnings(mc, pop)
    warn = getattr(log, "warning", log.info)
    for w in warnings:
        warn(f"dbt_deid geography: {w}")
    log.info(f"dbt_deid geography: {int(out['flag_05'].sum())} of {len(out)} areas flagged at"
             f" 5% uniqueness, {int(out['flag_20'].sum())} at 20%")
    return AreaAssessment(maxcombs=mc, table=out, warnings=tuple(warnings))
