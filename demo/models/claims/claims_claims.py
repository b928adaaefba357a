"""Synthetic HHP-like claims (El Emam et al. 2012, Table 3) from
``dbt_deid.tools.synthetic.claims.generate_hhp``,
calibrated to the paper and the public HHP release (``dbt_deid.longitudinal.calibration``).

One row per claim: ``claim_id, member_id, year, provider_id, vendor_id, pcp_id, specialty,
place_of_service, procedure_group, los (inpatient claims only), dsfc, diagnosis_code,
primary_condition_group, pay_delay, charlson_index`` (about 25 claims per patient before the
release's truncation, 23.6 after, as El Emam et al. 2012); vars ``claims_patients`` and
``claims_seed``.
"""

from typing import Any


def model(dbt: Any, session: Any) -> Any:
    """The claims table of the generator; categorical columns are written as strings."""
    dbt.config(materialized="table")
    from dbt_deid.tools.demo_entry import generate_hhp

    claims = generate_hhp(int(dbt.config.get("rows")), int(dbt.config.get("seed"))).claims
    for c in claims.columns:
        if str(claims[c].dtype) == "category":
            claims[c] = claims[c].astype("string")
    return claims
