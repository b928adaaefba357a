"""Thin dbt Python model: OLA (El Emam et al. 2012 "Base Algorithm"; El Emam et al. 2009 (CJHP)
"Apply Generalization and
Suppression") on the minimum-level pattern table ``deid_ola_patterns`` with the hierarchies of
``deid_hierarchy``. Returns the node report (k-minimal nodes, the chosen one, the top node and,
when no node passes, the message saying which limit to relax); ``deid_ola_levels`` selects the
chosen levels from it.
"""

import json


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_deid.dbt_entry import ola_search_frame, to_pandas

    release = json.loads(dbt.config.get("deid_release_json"))
    return ola_search_frame(
        to_pandas(dbt.ref("deid_ola_patterns")), to_pandas(dbt.ref("deid_hierarchy")), release
    )
