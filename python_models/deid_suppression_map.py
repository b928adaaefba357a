"""Thin dbt Python model: the combinations suppression map of the release (El Emam et al. 2011).

Reads ``deid_patterns`` (distinct QI tuples with counts), runs the core's suppression and returns
the map that ``deid_suppressed`` joins back onto the records. The release comes from the YAML
config ``deid_release_json`` (the var ``deid_release`` rendered as JSON).
"""

import json


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_deid.dbt_entry import suppression_map

    release = json.loads(dbt.config.get("deid_release_json"))
    return suppression_map(dbt.ref("deid_patterns"), release, model="deid_suppression_map")
