"""The one module dbt Python models import: frames in, frames out, no dbt imports needed.

The Python models in ``python_models/`` (and the demo's and the integration project's) read
their refs, call one function named here and return its frame. Everything they do is in the
core; the conversions between engine relations and the core live in :mod:`dbt_deid.glue`, and
this module re-exports them, with the seeded synthetic generators of :mod:`dbt_deid.synthetic`
for the demo sources. A test fails when a Python model imports anything else from dbt_deid.

Each name is imported from its module on first use (PEP 562), so a model that needs only
:func:`to_pandas` does not pay for importing LOLA, OLA, the report and the generators.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the same names, for type checkers and the import-structure test
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

#: Exported name -> the module that defines it.
_HOMES = {
    "parse_release": "dbt_deid.config",
    "attack_frame": "dbt_deid.glue.claims",
    "lola_frame": "dbt_deid.glue.claims",
    "pseudonymize_table": "dbt_deid.glue.claims",
    "to_pandas": "dbt_deid.glue.frames",
    "ola_search_frame": "dbt_deid.glue.ola",
    "algorithm_comparison": "dbt_deid.glue.release",
    "empty_algorithm_comparison": "dbt_deid.glue.release",
    "release_plan": "dbt_deid.glue.release",
    "suppression_map": "dbt_deid.glue.release",
    "empty_report_index": "dbt_deid.glue.report",
    "write_dbt_report": "dbt_deid.glue.report",
    "population_risk_frame": "dbt_deid.glue.risk",
    "small_areas_frame": "dbt_deid.glue.risk",
    "threshold_presets_frame": "dbt_deid.glue.risk",
    "uniqueness_frame": "dbt_deid.glue.risk",
    "Logger": "dbt_deid.progress",
    "dbt_logger": "dbt_deid.progress",
    "run_suppression": "dbt_deid.suppression",
    "generate_hhp": "dbt_deid.synthetic.claims",
    "diagnosis_hierarchy": "dbt_deid.synthetic.discharge",
    "generate_discharges": "dbt_deid.synthetic.discharge",
    "demo_corpus": "dbt_deid.synthetic.text",
    "rule_detector": "dbt_deid.synthetic.text",
    "assess_frame": "dbt_deid.text_risk.assessment",
}

__all__ = [
    "Logger", "algorithm_comparison", "assess_frame", "attack_frame", "dbt_logger",
    "demo_corpus", "diagnosis_hierarchy", "empty_algorithm_comparison", "empty_report_index",
    "generate_discharges", "generate_hhp", "lola_frame", "ola_search_frame", "parse_release",
    "population_risk_frame", "pseudonymize_table", "release_plan", "rule_detector",
    "run_suppression", "small_areas_frame", "suppression_map", "threshold_presets_frame",
    "to_pandas", "uniqueness_frame", "write_dbt_report",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'dbt_deid.dbt_entry' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOMES})
