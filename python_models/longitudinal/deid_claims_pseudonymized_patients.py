"""dbt Python model ``deid_claims_pseudonymized_patients``: reads its refs and configs and calls
:func:`dbt_deid.dbt_side.glue.claims.deid_claims_pseudonymized_patients`."""


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_deid.dbt_side.entry import deid_claims_pseudonymized_patients

    return deid_claims_pseudonymized_patients(
        dbt.config.get("deid_claims_release_json"),
        dbt.ref("deid_claims_input_patients"),
    )
