"""dbt Python model ``deid_claims_plan``: reads its config and calls
:func:`dbt_deid.dbt_side.glue.settings_plan.deid_claims_plan`."""


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_deid.dbt_side.entry import deid_claims_plan

    return deid_claims_plan(dbt.config.get("deid_claims_release_json"))
