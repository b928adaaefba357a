"""Thin dbt Python model: the threshold presets (release contexts) and the release's choice.

One row per preset of :data:`dbt_deid.risk.PRESETS` (public: tau 0.05 / 0% uniqueness, El Emam
et al. 2011 and 2010; agreement: tau 0.2 / 5%, El Emam et al. 2009 (CJHP) and 2010; audited: tau
1/3 / 20%, El Emam et al. 2009 (CJHP) Appendix 1 and El Emam et al. 2010) with ``chosen`` set on
the release's ``preset`` and the tau/k the release uses.
"""

import json


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_deid.dbt_entry import threshold_presets_frame

    return threshold_presets_frame(json.loads(dbt.config.get("deid_release_json")))
