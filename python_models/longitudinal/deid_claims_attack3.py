"""dbt Python model ``deid_claims_attack3``: reads its refs and configs and calls
:func:`dbt_deid.dbt_side.glue.claims.deid_claims_attack3`."""


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_deid.dbt_side.entry import deid_claims_attack3

    return deid_claims_attack3(
        dbt.config.get("deid_claims_release_json"),
        dbt.ref("deid_claims_patients_preprocessed"),
        dbt.ref("deid_claims_d2"),
        dbt.ref("deid_claims_hierarchy"),
        dbt.ref("deid_claims_lola"),
        dbt.ref("deid_claims_attack3_population"),
    )
