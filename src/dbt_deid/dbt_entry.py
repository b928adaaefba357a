"""The one module dbt Python models import: frames in, frames out, no dbt imports needed.

The Python models in ``python_models/`` (and the demo's and the integration project's) read
their refs, call one function named here and return its frame. Everything they do is in the
core; the conversions between engine relations and the core live in :mod:`dbt_deid.glue`, and
this module re-exports them, with the seeded synthetic generators of :mod:`dbt_deid.synthetic`
for the demo sources. A test fails when a Python model imports anything else from dbt_deid.
"""

from __future__ import annotations

from dbt_deid.config import parse_release
from dbt_deid.glue.claims import attack_frame, lola_frame, pseudonymize_table
from dbt_deid.glue.frames import to_pandas
from dbt_deid.glue.ola import ola_search_frame
from dbt_deid.glue.release import (
    algorithm_comparison,
    empty_algorithm_comparison,
    release_plan,
    suppression_map,
)
from dbt_deid.glue.report import empty_report_index, write_dbt_report
from dbt_deid.glue.risk import (
    population_risk_frame,
    small_areas_frame,
    threshold_presets_frame,
    uniqueness_frame,
)
from dbt_deid.progress import Logger, dbt_logger
from dbt_deid.suppression import run_suppression
from dbt_deid.synthetic.claims import generate_hhp
from dbt_deid.synthetic.discharge import diagnosis_hierarchy, generate_discharges
from dbt_deid.synthetic.text import demo_corpus, rule_detector
from dbt_deid.text_risk.assessment import assess_frame

__all__ = [
    "Logger", "algorithm_comparison", "assess_frame", "attack_frame", "dbt_logger",
    "demo_corpus", "diagnosis_hierarchy", "empty_algorithm_comparison", "empty_report_index",
    "generate_discharges", "generate_hhp", "lola_frame", "ola_search_frame", "parse_release",
    "population_risk_frame", "pseudonymize_table", "release_plan", "rule_detector",
    "run_suppression", "small_areas_frame", "suppression_map", "threshold_presets_frame",
    "to_pandas", "uniqueness_frame", "write_dbt_report",
]
