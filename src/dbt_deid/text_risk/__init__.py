"""Risk of re-identification of de-identified free text (Scaiano, El Emam et al. 2016).

Gold annotations and a tool's detections become a per-annotation "caught or not" table
(:mod:`.matching`); SQL-shaped group-bys reduce it to two small aggregate tables
(:mod:`.counting`); closed forms (:mod:`.probabilities`, equations 11-19), Monte Carlo
distributions (:mod:`.distributions`, equations 20-21) and thresholds (:mod:`.thresholds`,
section 2.3.9) turn those into 95% intervals and pass/fail gates (:mod:`.assessment`).
The synthetic annotated corpus and rule-based detector are :mod:`dbt_deid.tools.synthetic.text`.
"""

from dbt_deid.text_risk.assessment import (
    RESULT_COLUMNS,
    Assessment,
    Settings,
    assess,
    assess_corpus,
    assess_frame,
    recall_summary,
)
from dbt_deid.text_risk.counting import (
    DIRECT_COUNT_COLUMNS,
    QUASI_COUNT_COLUMNS,
    QuasiMeasures,
    all_or_nothing_recall,
    direct_counts,
    direct_measures,
    document_type_counts,
    masking_recall,
    micro_recall,
    quasi_counts,
    quasi_measures,
)
from dbt_deid.text_risk.distributions import (
    Interval,
    Triangular,
    interval,
    simulate_direct,
    simulate_quasi,
)
from dbt_deid.text_risk.inputs import TextInputs, validate_inputs
from dbt_deid.text_risk.matching import annotation_outcomes, annotation_tokens, token_outcomes
from dbt_deid.text_risk.probabilities import (
    DEFAULT_H,
    DIRECT_CUTOFF,
    QUASI_CUTOFF,
    direct_leak_probability,
    direct_reid_probability,
    prob_at_least_two,
    quasi_leak_probability,
    quasi_reid_probability,
)
from dbt_deid.text_risk.thresholds import (
    DEFAULT_TAU,
    Verdict,
    benchmark_direct,
    direct_verdict,
    quasi_verdict,
    tau_from_cell_size,
)

__all__ = [
    "DEFAULT_H", "DEFAULT_TAU", "DIRECT_COUNT_COLUMNS", "DIRECT_CUTOFF",
    "QUASI_COUNT_COLUMNS", "QUASI_CUTOFF", "RESULT_COLUMNS", "Assessment", "Interval",
    "QuasiMeasures", "Settings", "TextInputs", "Triangular", "Verdict", "all_or_nothing_recall",
    "annotation_outcomes", "annotation_tokens", "assess", "assess_corpus", "assess_frame",
    "benchmark_direct",
    "direct_counts", "direct_leak_probability", "direct_measures",
    "direct_reid_probability", "direct_verdict", "document_type_counts", "interval",
    "masking_recall", "micro_recall", "prob_at_least_two", "quasi_counts",
    "quasi_leak_probability", "quasi_measures", "quasi_reid_probability", "quasi_verdict",
    "recall_summary", "simulate_direct", "simulate_quasi", "tau_from_cell_size",
    "token_outcomes", "validate_inputs",
]
