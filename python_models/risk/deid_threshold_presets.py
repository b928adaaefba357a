"""dbt Python model ``deid_threshold_presets``: reads its refs and configs and calls
:func:`dbt_deid.dbt_side.glue.risk.deid_threshold_presets`."""


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_deid.dbt_side.entry import deid_threshold_presets

    return deid_threshold_presets(dbt.config.get("deid_release_json"))
