"""Thin dbt Python model: the threshold presets (release contexts) and the release's choice.

One row per preset of :data:`dbt_deid.risk.PRESETS` (public: tau 0.05 / 0% uniqueness, seed 000
and 002; agreement: tau 0.2 / 5%, seed 003 and 002; audited: tau 1/3 / 20%, seed 003 Appendix 1
and seed 002) with ``chosen`` set on the release's ``preset`` and the tau/k the release uses.
"""

import json


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_deid.dbt_entry import threshold_presets_frame

    return threshold_presets_frame(json.loads(dbt.config.get("deid_release_json")))
