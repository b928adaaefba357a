"""LOLA: risk-based de-identification of longitudinal claims (El Emam et al. 2012, the Heritage
Health Prize release).

Modules: :mod:`calibration` (what the synthetic claims of :mod:`dbt_deid.tools.synthetic.claims` are
calibrated to, with sources), :mod:`settings` (the claims release's settings), :mod:`hierarchies`
(Table 4),
:mod:`pseudonyms` (keyed HMAC-SHA256), :mod:`preprocess` (top-coding, truncation per patient or
per patient and year, stigmatized-patient removal, provider suppression), :mod:`power`
(adversary power p_ih), :mod:`adversary` (the knowledge model: known demographics, power
function, matching), :mod:`encoding` (integer codes per level), :mod:`matching` (knowledge
draws and indexed match counting), :mod:`bootstrap` (node evaluation: pooled or the paper's
independent iterations), :mod:`search` (LOLA on OLA's lattice search, the relax message),
:mod:`attack` (simulated attack 1, marketer risk against population counts), :mod:`attack3`
(Table 6: marketer risk against a population of inpatient visits), :mod:`hhp_release` (the
public HHP release-3 files in the pipeline's tables, read from the user's own copy),
:mod:`repetition` (per-patient repetition figures at a node), :mod:`demo` (end-to-end run).
"""

from dbt_deid.longitudinal.attack import (
    AttackResult,
    MarketerResult,
    marketer_risk,
    population_marketer_risk,
    simulate_attack1,
)
from dbt_deid.longitudinal.bootstrap import (
    BootstrapResult,
    NodeEvaluator,
    k_for_sample,
    max_sup_from_risk_exposure,
    power_matrix,
)
from dbt_deid.longitudinal.encoding import EncodedData, LongitudinalSpec, encode
from dbt_deid.longitudinal.power import adversary_power, power_formula
from dbt_deid.longitudinal.preprocess import HHPData
from dbt_deid.longitudinal.search import LolaResult, lola_search, non_uniform_entropy

__all__ = [
    "AttackResult", "BootstrapResult", "EncodedData", "HHPData", "LolaResult",
    "LongitudinalSpec", "MarketerResult", "NodeEvaluator", "adversary_power", "encode",
    "k_for_sample", "lola_search", "marketer_risk",
    "max_sup_from_risk_exposure", "non_uniform_entropy", "population_marketer_risk",
    "power_formula", "power_matrix", "simulate_attack1",
]
