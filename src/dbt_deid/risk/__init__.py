"""Risk measurement for a release (El Emam et al.): prosecutor, journalist and marketer risk,
registry matching, uniqueness estimators, small-area models, threshold presets, diagnostics.

Every function takes pattern tables as DataFrames: one row per distinct quasi-identifier tuple
with its record count (column ``n``), a suppressed cell being None/NaN.
"""

from dbt_deid.risk.assessment import RiskAssessment, assess_release
from dbt_deid.risk.diagnostics import (
    OTHER,
    class_size_histogram,
    information_loss,
    lump_small,
    risk_cdf,
    suppression_by,
    suppression_by_column,
)
from dbt_deid.risk.geography import (
    AreaAssessment,
    assess_areas,
    category_counts,
    max_combs,
    uniqueness_probability,
)
from dbt_deid.risk.population import (
    PopulationRisk,
    marketer_bound,
    population_class_sizes,
    population_risk,
    registry_match_risk,
)
from dbt_deid.risk.prosecutor import ProsecutorRisk, prosecutor_risk, prosecutor_table
from dbt_deid.risk.thresholds import PRESETS, ThresholdPreset, threshold_preset
from dbt_deid.risk.uniqueness import (
    PitmanFit,
    UniquenessEstimate,
    estimate_uniqueness,
    fit_pitman,
    pitman_expected_uniques,
    uniqueness_from_sizes,
    zayatz_population_uniques,
)

__all__ = [
    "OTHER", "PRESETS", "AreaAssessment", "PitmanFit", "PopulationRisk", "ProsecutorRisk",
    "RiskAssessment", "ThresholdPreset", "UniquenessEstimate", "assess_areas", "assess_release",
    "category_counts", "class_size_histogram", "estimate_uniqueness", "fit_pitman",
    "information_loss", "lump_small", "marketer_bound", "max_combs", "pitman_expected_uniques",
    "population_class_sizes", "population_risk", "prosecutor_risk", "prosecutor_table",
    "registry_match_risk", "risk_cdf", "suppression_by", "suppression_by_column",
    "threshold_preset", "uniqueness_from_sizes", "uniqueness_probability",
    "zayatz_population_uniques",
]
