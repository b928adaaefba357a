"""dbt Python model ``deid_claims_pseudonymized_claims``: reads its refs and configs and calls
:func:`dbt_deid.dbt_side.glue.claims.deid_claims_pseudonymized_claims`."""


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_deid.dbt_side.entry import deid_claims_pseudonymized_claims

    return deid_claims_pseudonymized_claims(
        dbt.config.get("deid_claims_release_json"),
        dbt.ref("deid_claims_input_claims"),
    )
