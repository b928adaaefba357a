"""Thin dbt Python model: the patients with keyed pseudonyms (El Emam et al. 2012, "Creating
Pseudonyms").

Reads ``deid_claims_input_patients`` and replaces the ids listed under
``pseudonymize.patients`` of var ``deid_claims_release`` by HMAC-SHA256
pseudonyms. The key is read by the core from the
environment variable named by ``key_env`` (default ``DBT_DEID_PSEUDONYM_KEY``): it is never in the
configuration, the compiled code, the logs or a table. A missing key fails the model with a
message naming the variable, and nothing downstream builds.
"""

import json
from typing import Any


def model(dbt: Any, session: Any) -> Any:
    """Pseudonymize the patients; only counts are logged."""
    dbt.config(materialized="table")
    from dbt_deid.dbt_entry import dbt_logger, pseudonymize_table, to_pandas

    release = json.loads(dbt.config.get("deid_claims_release_json"))
    frame = to_pandas(dbt.ref("deid_claims_input_patients"))
    name = "deid_claims_pseudonymized_patients"
    return pseudonymize_table(frame, release, "patients", model=name, logger=dbt_logger())
