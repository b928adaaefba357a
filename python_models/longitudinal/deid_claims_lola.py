"""dbt Python model ``deid_claims_lola``: reads its refs and configs and calls
:func:`dbt_deid.dbt_side.glue.claims.deid_claims_lola`."""


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_deid.dbt_side.entry import deid_claims_lola

    return deid_claims_lola(
        dbt.config.get("deid_claims_release_json"),
        dbt.ref("deid_claims_patients_preprocessed"),
        dbt.ref("deid_claims_d2"),
        dbt.ref("deid_claims_hierarchy"),
        dbt.ref("deid_claims_verdict_inputs"),
    )
