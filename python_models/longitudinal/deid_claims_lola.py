"""Thin dbt Python model: LOLA on the released claims (El Emam et al. 2012, "Adversary Knowledge and
Power", "Node Computation").

Reads the preprocessed patients, D2 (``deid_claims_d2``) and the hierarchies in long form, then
calls :func:`dbt_deid.glue.claims.lola_frame`: adversary power p_ih, k from tau and
alpha, bootstrap node evaluation (B, I, seed, variant) and OLA's lattice search. Returns one row
per evaluated node with its bootstrap mean and 95% interval, the chosen node and the release
node. Settings: var ``deid_claims_release`` (config key ``deid_claims_release_json``).
"""

import json
from typing import Any


def model(dbt: Any, session: Any) -> Any:
    """The node report; progress is logged as counts only."""
    dbt.config(materialized="table")
    from dbt_deid.dbt_entry import dbt_logger, lola_frame, to_pandas

    release = json.loads(dbt.config.get("deid_claims_release_json"))
    return lola_frame(
        to_pandas(dbt.ref("deid_claims_patients_preprocessed")),
        to_pandas(dbt.ref("deid_claims_d2")),
        to_pandas(dbt.ref("deid_claims_hierarchy")),
        release,
        logger=dbt_logger(),
    )
