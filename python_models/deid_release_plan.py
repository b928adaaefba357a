"""Thin dbt Python model: the release plan (combinations, released QIs, propagation).

The core validates the release and expands hierarchical QIs (El Emam et al. 2011 Tables 4, 5, 7, 8)
into
the combinations the suppression protects and those the gates verify; SQL models and tests read
this table (macro ``dbt_deid.release_plan``), so the expansion has one implementation.
"""

import json


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_deid.dbt_entry import release_plan

    return release_plan(json.loads(dbt.config.get("deid_release_json")))
