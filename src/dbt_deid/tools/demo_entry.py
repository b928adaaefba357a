"""The one dbt_deid module the demo's and the integration project's source models import.

Their source models (``demo/models``, ``integration_tests/models``) are synthetic data: each
calls one seeded generator of :mod:`dbt_deid.tools.synthetic` (the text models also
:func:`dbt_deid.dbt_side.entry.to_pandas`). The generators are demo code, so they live with the
tools and the dbt side never imports them (tests/unit/test_import_structure.py).

Each name is imported from its module on first use (PEP 562), as in
:mod:`dbt_deid.dbt_side.entry`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dbt_deid.lazy_exports import lazy_exports

if TYPE_CHECKING:  # the same names, for type checkers and the import-structure test
    from dbt_deid.tools.synthetic.claims import generate_hhp, generate_sid_visits
    from dbt_deid.tools.synthetic.discharge import diagnosis_hierarchy, generate_discharges
    from dbt_deid.tools.synthetic.discharge_months import discharge_months
    from dbt_deid.tools.synthetic.text import demo_corpus, rule_detector

#: Exported name -> the module that defines it.
_HOMES = {
    "generate_hhp": "dbt_deid.tools.synthetic.claims",
    "generate_sid_visits": "dbt_deid.tools.synthetic.claims",
    "diagnosis_hierarchy": "dbt_deid.tools.synthetic.discharge",
    "generate_discharges": "dbt_deid.tools.synthetic.discharge",
    "discharge_months": "dbt_deid.tools.synthetic.discharge_months",
    "demo_corpus": "dbt_deid.tools.synthetic.text",
    "rule_detector": "dbt_deid.tools.synthetic.text",
}

__all__ = ["demo_corpus", "diagnosis_hierarchy", "discharge_months", "generate_discharges",
           "generate_hhp", "generate_sid_visits", "rule_detector"]


__getattr__, __dir__ = lazy_exports(__name__, _HOMES)
