"""Thin dbt Python model: the simulated attack on the release node (El Emam et al. 2012, "Empirical
Evaluation").

Attack 1 (nosey neighbour): knowledge drawn from D1 (``deid_claims_d1``, every claim) with the
power computed on D1, matched against D2 (``deid_claims_d2``, the released claims) at the node
of ``deid_claims_lola``; attack 2: the closed-form marketer risk of the generalized
``attack2_qis`` against the population counts of ``deid_claims_attack2_population`` (null
without one). Calls :func:`dbt_deid.glue.claims.attack_frame`; one row.
"""

import json
from typing import Any


def model(dbt: Any, session: Any) -> Any:
    """The attack result; only counts are logged."""
    dbt.config(materialized="table")
    from dbt_deid.dbt_entry import attack_frame, dbt_logger, to_pandas

    release = json.loads(dbt.config.get("deid_claims_release_json"))
    d2 = to_pandas(dbt.ref("deid_claims_d2_ids"))
    return attack_frame(
        to_pandas(dbt.ref("deid_claims_patients_preprocessed")),
        to_pandas(dbt.ref("deid_claims_d1")),
        d2,
        to_pandas(dbt.ref("deid_claims_hierarchy")),
        to_pandas(dbt.ref("deid_claims_lola")),
        release,
        to_pandas(dbt.ref("deid_claims_attack2_population")),
        logger=dbt_logger(),
    )
