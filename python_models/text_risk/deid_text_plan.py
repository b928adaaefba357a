"""dbt Python model ``deid_text_plan``: reads its config and calls
:func:`dbt_deid.dbt_side.glue.settings_plan.deid_text_plan`."""


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_deid.dbt_side.entry import deid_text_plan

    return deid_text_plan(dbt.config.get("deid_text_release_json"))
