"""One call measuring a release: every risk measure and diagnostic the report shows.

:func:`assess_release` runs, on a released pattern table, the prosecutor risk (El Emam et al. 2011
attack 3, El Emam et al. 2009 (CJHP)), journalist and marketer risk when population information is
given (El Emam et al. 2011 equations 2-3), sample/population uniqueness (Zayatz, Pitman), the El
Emam et al. 2009 (CJHP) diagnostics and, optionally, El Emam et al. 2010's small-area models.
``to_dict()`` gives aggregate figures only (no QI values), which is what the CLI prints.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from dbt_deid.progress import Logger, get_logger
from dbt_deid.risk._common import COUNT_COLUMN, check_qi
from dbt_deid.risk.diagnostics import (
    binned_histogram,
    class_size_histogram,
    information_loss,
    risk_cdf,
    share_at_or_below,
    suppression_by,
    suppression_by_column,
)
from dbt_deid.risk.geography import AreaAssessment
from dbt_deid.risk.population import PopulationRisk, population_risk
from dbt_deid.risk.prosecutor import ProsecutorRisk, prosecutor_risk
from dbt_deid.risk.thresholds import ThresholdPreset
from dbt_deid.risk.uniqueness import UniquenessEstimate, uniqueness_from_sizes

CDF_MARKS = (0.05, 0.1, 0.2, 1.0 / 3.0, 0.5)


@dataclass
class RiskAssessment:
    """Everything measured on one release (aggregate figures and safe tables)."""

    qi: tuple[str, ...]
    tau: float
    k: int
    prosecutor: ProsecutorRisk
    population: PopulationRisk | None
    uniqueness: UniquenessEstimate | None
    cdf: pd.DataFrame = field(repr=False)
    exact_cdf: pd.DataFrame | None = field(repr=False)
    histogram: pd.DataFrame = field(repr=False)
    suppression: pd.DataFrame = field(repr=False)
    information_loss: dict[str, Any] = field(repr=False)
    breakdown: pd.DataFrame | None = field(default=None, repr=False)
    breakdown_by: str | None = None
    preset: ThresholdPreset | None = None
    areas: AreaAssessment | None = None
    name: str = "release"

    @property
    def sample_uniques(self) -> int:
        hist = self.histogram
        return int(hist.loc[hist["class_size"] == 1, "records"].sum())

    def cdf_marks(self) -> dict[str, float]:
        marks = sorted({*CDF_MARKS, self.tau})
        return {f"{m:.4g}": share_at_or_below(self.cdf, m) for m in marks}

    def to_dict(self) -> dict[str, Any]:
        p = self.prosecutor
        return {
            "name": self.name,
            "qi": list(self.qi),
            "tau": self.tau,
            "k": self.k,
            "records": p.n_records,
            "classes": p.n_classes,
            "sample_uniques": self.sample_uniques,
            "sample_uniqueness": self.sample_uniques / p.n_records,
            "prosecutor": p.to_dict(),
            "journalist_marketer": None if self.population is None else self.population.to_dict(),
            "uniqueness": None if self.uniqueness is None else self.uniqueness.to_dict(),
            "risk_cdf_share_at_or_below": self.cdf_marks(),
            "class_size_histogram": binned_histogram(self.histogram, self.k).to_dict(
                orient="records"),
            "suppression_by_column": self.suppression.to_dict(orient="records"),
            "information_loss": self.information_loss,
            "threshold_preset": None if self.preset is None else self.preset.to_dict(),
            "small_areas": None if self.areas is None else self.areas.to_dict(),
        }


def assess_release(
    published: pd.DataFrame,
    qi: Sequence[str],
    tau: float,
    *,
    count_column: str | None = COUNT_COLUMN,
    true_values: pd.DataFrame | None = None,
    exact_distribution: tuple[np.ndarray, np.ndarray] | None = None,
    population: pd.DataFrame | None = None,
    population_count_column: str | None = COUNT_COLUMN,
    sampling_fraction: float | None = None,
    population_size: float | None = None,
    population_estimator: str = "scaling",
    by: str | None = None,
    columns: Sequence[str] | None = None,
    missing_values: Sequence[Any] = ("", "<missing>"),
    preset: ThresholdPreset | None = None,
    areas: AreaAssessment | None = None,
    name: str = "release",
    logger: Logger | None = None,
) -> RiskAssessment:
    """Measure a release (pattern table, null = suppressed; see the module docstring).

    ``columns`` (default: ``qi``) are the columns whose suppression is reported; ``by`` adds the
    breakdown of their suppression by that column's categories (pooled below k).
    """
    log = logger or get_logger()
    cols = check_qi(published, qi)
    pros = prosecutor_risk(published, cols, tau, count_column=count_column,
                           true_values=true_values, exact_distribution=exact_distribution)
    k = pros.k
    log.info(f"dbt_deid risk: {pros.n_records} records in {pros.n_classes} classes,"
             f" smallest class {pros.stats.smallest_class}")
    pop = None
    if population is not None or sampling_fraction is not None or population_size is not None:
        pop = population_risk(
            published, cols, tau, count_column=count_column, population=population,
            population_count_column=population_count_column,
            sampling_fraction=sampling_fraction, population_size=population_size,
            estimator=population_estimator, logger=log,
        )
    uniq = None
    if pop is not None:
        sizes = _one_size_per_class(pros.class_size, pros.counts)
        uniq = uniqueness_from_sizes(sizes, population_size=pop.population_size)
    exact_cdf = None
    if pros.consistent is not None:
        exact_cdf = risk_cdf(1.0 / pros.consistent, pros.consistent_weights)
    sup_cols = list(columns) if columns is not None else cols
    breakdown = None
    if by is not None:
        breakdown = suppression_by(published, sup_cols, by, k, count_column=count_column,
                                   missing_values=missing_values)
    return RiskAssessment(
        qi=tuple(cols), tau=float(tau), k=k, prosecutor=pros, population=pop,
        uniqueness=uniq, cdf=risk_cdf(pros.record_risk, pros.counts), exact_cdf=exact_cdf,
        histogram=class_size_histogram(pros.class_size, pros.counts),
        suppression=suppression_by_column(published, sup_cols, count_column=count_column,
                                          missing_values=missing_values),
        information_loss=information_loss(published, cols, count_column=count_column),
        breakdown=breakdown, breakdown_by=by, preset=preset, areas=areas, name=name,
    )


def _one_size_per_class(row_sizes: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Class sizes, one per class, from per-row sizes: a class of size s spans rows whose
    counts add to s, so it contributes s / s = 1 after weighting each row by count / s."""
    sizes = np.asarray(row_sizes, dtype=np.int64)
    w = np.asarray(counts, dtype=np.int64)
    per_size = pd.Series(w).groupby(sizes).sum()
    out = [np.full(int(total // s), s, dtype=np.int64) for s, total in per_size.items()]
    return np.concatenate(out)
