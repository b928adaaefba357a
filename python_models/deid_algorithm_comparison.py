"""Thin dbt Python model: the release run with both the combinations and the complete
algorithm (El Emam et al. 2011 "Evaluation"), side by side. The algorithm the release selected is
read
from its released patterns (deid_suppressed_patterns); the other one runs on the pattern
table (deid_patterns)."""

import json


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_deid.dbt_entry import algorithm_comparison, to_pandas

    release = json.loads(dbt.config.get("deid_release_json"))
    patterns = to_pandas(dbt.ref("deid_patterns"))
    if len(patterns) == 0:  # only under `dbt build --empty`: a real build stops upstream
        from dbt_deid.dbt_entry import empty_algorithm_comparison

        return empty_algorithm_comparison()
    return algorithm_comparison(patterns, release, dbt.ref("deid_suppressed_patterns"))
