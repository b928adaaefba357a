"""Synthetic HHP-like claims (seed 001, Table 3) from ``dbt_deid.longitudinal.generate_hhp``.

One row per claim: ``claim_id, member_id, year, provider_id, vendor_id, pcp_id, specialty,
place_of_service, procedure_group, los, dsfc, diagnosis_code, primary_condition_group,
pay_delay, charlson_index`` (about 23.6 claims per patient); vars ``claims_patients`` and
``claims_seed``.
"""

from typing import Any


def model(dbt: Any, session: Any) -> Any:
    """The claims table of the generator; categorical columns are written as strings."""
    dbt.config(materialized="table")
    from dbt_deid.longitudinal.generator import generate_hhp

    claims = generate_hhp(int(dbt.config.get("rows")), int(dbt.config.get("seed"))).claims
    for c in claims.columns:
        if str(claims[c].dtype) == "category":
            claims[c] = claims[c].astype("string")
    return claims
