"""The one module dbt Python models import: frames in, frames out, no dbt imports needed.

Every Python model of the package (``python_models/``), and every extra release's copy of one
(``python -m dbt_deid add-release``), is only its literal ``dbt.ref(...)`` /
``dbt.config.get(...)`` calls (dbt reads them from each file's source) and one call of the
function named after the model, re-exported here from :mod:`dbt_deid.dbt_side.glue`: its
body, with the paper it implements. The demo's and the integration project's source models
import the seeded synthetic generators from :mod:`dbt_deid.tools.demo_entry` instead (demo code
is a tool, not part of the dbt side). A test fails when a Python model imports anything else
from dbt_deid, or when a package model or a release copy is more than its calls
(tests/unit/test_import_structure.py).

Each name is imported from its module on first use (PEP 562), so a model that needs only
:func:`to_pandas` does not pay for importing LOLA, OLA and the report.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dbt_deid.lazy_exports import lazy_exports

if TYPE_CHECKING:  # the same names, for type checkers and the import-structure test
    from dbt_deid.dbt_side.glue.claims import (
        deid_claims_attack,
        deid_claims_attack3,
        deid_claims_lola,
        deid_claims_pseudonymized_claims,
        deid_claims_pseudonymized_patients,
    )
    from dbt_deid.dbt_side.glue.frames import to_pandas
    from dbt_deid.dbt_side.glue.map_model import deid_suppression_map
    from dbt_deid.dbt_side.glue.ola import deid_ola_search
    from dbt_deid.dbt_side.glue.release import (
        deid_algorithm_comparison,
        deid_release_plan,
        suppression_map,
    )
    from dbt_deid.dbt_side.glue.report import deid_release_report
    from dbt_deid.dbt_side.glue.risk import (
        deid_population_risk,
        deid_small_areas,
        deid_uniqueness,
    )
    from dbt_deid.dbt_side.glue.settings_plan import deid_claims_plan, deid_text_plan
    from dbt_deid.dbt_side.glue.text import deid_text_risk_assessment

#: Exported name -> the module that defines it.
_HOMES = {
    "deid_claims_attack": "dbt_deid.dbt_side.glue.claims",
    "deid_claims_attack3": "dbt_deid.dbt_side.glue.claims",
    "deid_claims_lola": "dbt_deid.dbt_side.glue.claims",
    "deid_claims_pseudonymized_claims": "dbt_deid.dbt_side.glue.claims",
    "deid_claims_pseudonymized_patients": "dbt_deid.dbt_side.glue.claims",
    "to_pandas": "dbt_deid.dbt_side.glue.frames",
    "deid_ola_search": "dbt_deid.dbt_side.glue.ola",
    "deid_algorithm_comparison": "dbt_deid.dbt_side.glue.release",
    "deid_release_plan": "dbt_deid.dbt_side.glue.release",
    "deid_suppression_map": "dbt_deid.dbt_side.glue.map_model",
    "suppression_map": "dbt_deid.dbt_side.glue.release",
    "deid_release_report": "dbt_deid.dbt_side.glue.report",
    "deid_population_risk": "dbt_deid.dbt_side.glue.risk",
    "deid_small_areas": "dbt_deid.dbt_side.glue.risk",
    "deid_uniqueness": "dbt_deid.dbt_side.glue.risk",
    "deid_text_risk_assessment": "dbt_deid.dbt_side.glue.text",
    "deid_claims_plan": "dbt_deid.dbt_side.glue.settings_plan",
    "deid_text_plan": "dbt_deid.dbt_side.glue.settings_plan",
}

__all__ = [
    "deid_algorithm_comparison", "deid_claims_attack", "deid_claims_attack3", "deid_claims_plan",
    "deid_claims_lola", "deid_claims_pseudonymized_claims", "deid_claims_pseudonymized_patients",
    "deid_ola_search", "deid_population_risk", "deid_release_plan",
    "deid_release_report", "deid_small_areas", "deid_suppression_map",
    "deid_text_plan", "deid_text_risk_assessment", "deid_uniqueness",
    "suppression_map", "to_pandas",
]


__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
