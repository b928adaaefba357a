"""dbt Python model ``deid_release_plan``: reads its refs and configs and calls
:func:`dbt_deid.dbt_side.glue.release.deid_release_plan`."""


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_deid.dbt_side.entry import deid_release_plan

    return deid_release_plan(dbt.config.get("deid_release_json"))
