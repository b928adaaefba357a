"""Thin dbt Python model: the release run with both the combinations and the complete
algorithm (seed 000 "Evaluation"), side by side. The algorithm the release selected is read
from its released patterns (deid_suppressed_patterns); the other one runs on the pattern
table (deid_patterns)."""

import json


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_deid.dbt_entry import algorithm_comparison, to_pandas

    release = json.loads(dbt.config.get("deid_release_json"))
    return algorithm_comparison(to_pandas(dbt.ref("deid_patterns")), release,
                                dbt.ref("deid_suppressed_patterns"))
