"""The one module dbt Python models import: frames in, frames out, no dbt imports needed.

Every Python model of the package (``python_models/``), and every extra release's copy of one
(``python -m dbt_deid add-release``), is only its literal ``dbt.ref(...)`` /
``dbt.config.get(...)`` calls (dbt reads them from each file's source) and one call of the
function named after the model, re-exported here from :mod:`dbt_deid.glue`: its body, with
the paper it implements. The demo's and the integration project's source models use the
seeded synthetic generators of :mod:`dbt_deid.synthetic` and :func:`to_pandas`. A test fails
when a Python model imports anything else from dbt_deid, or when a package model or a release
copy is more than its calls (tests/unit/test_import_structure.py).

Each name is imported from its module on first use (PEP 562), so a model that needs only
:func:`to_pandas` does not pay for importing LOLA, OLA, the report and the generators.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the same names, for type checkers and the import-structure test
    from dbt_deid.glue.claims import (
        deid_claims_attack,
        deid_claims_lola,
        deid_claims_pseudonymized_claims,
        deid_claims_pseudonymized_patients,
    )
    from dbt_deid.glue.frames import to_pandas
    from dbt_deid.glue.ola import deid_ola_search
    from dbt_deid.glue.release import (
        deid_algorithm_comparison,
        deid_release_plan,
        deid_suppression_map,
        suppression_map,
    )
    from dbt_deid.glue.report import deid_release_report
    from dbt_deid.glue.risk import (
        deid_population_risk,
        deid_small_areas,
        deid_threshold_presets,
        deid_uniqueness,
    )
    from dbt_deid.glue.text import deid_text_risk_assessment
    from dbt_deid.synthetic.claims import generate_hhp
    from dbt_deid.synthetic.discharge import diagnosis_hierarchy, generate_discharges
    from dbt_deid.synthetic.text import demo_corpus, rule_detector

#: Exported name -> the module that defines it.
_HOMES = {
    "deid_claims_attack": "dbt_deid.glue.claims",
    "deid_claims_lola": "dbt_deid.glue.claims",
    "deid_claims_pseudonymized_claims": "dbt_deid.glue.claims",
    "deid_claims_pseudonymized_patients": "dbt_deid.glue.claims",
    "to_pandas": "dbt_deid.glue.frames",
    "deid_ola_search": "dbt_deid.glue.ola",
    "deid_algorithm_comparison": "dbt_deid.glue.release",
    "deid_release_plan": "dbt_deid.glue.release",
    "deid_suppression_map": "dbt_deid.glue.release",
    "suppression_map": "dbt_deid.glue.release",
    "deid_release_report": "dbt_deid.glue.report",
    "deid_population_risk": "dbt_deid.glue.risk",
    "deid_small_areas": "dbt_deid.glue.risk",
    "deid_threshold_presets": "dbt_deid.glue.risk",
    "deid_uniqueness": "dbt_deid.glue.risk",
    "deid_text_risk_assessment": "dbt_deid.glue.text",
    "generate_hhp": "dbt_deid.synthetic.claims",
    "diagnosis_hierarchy": "dbt_deid.synthetic.discharge",
    "generate_discharges": "dbt_deid.synthetic.discharge",
    "demo_corpus": "dbt_deid.synthetic.text",
    "rule_detector": "dbt_deid.synthetic.text",
}

__all__ = [
    "deid_algorithm_comparison", "deid_claims_attack", "deid_claims_lola",
    "deid_claims_pseudonymized_claims", "deid_claims_pseudonymized_patients", "deid_ola_search",
    "deid_population_risk", "deid_release_plan", "deid_release_report", "deid_small_areas",
    "deid_suppression_map", "deid_text_risk_assessment", "deid_threshold_presets",
    "deid_uniqueness", "demo_corpus", "diagnosis_hierarchy", "generate_discharges",
    "generate_hhp", "rule_detector", "suppression_map", "to_pandas",
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
