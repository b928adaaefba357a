"""dbt Python model ``deid_small_areas``: reads its refs and configs and calls
:func:`dbt_deid.dbt_side.glue.risk.deid_small_areas`."""


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_deid.dbt_side.entry import deid_small_areas

    return deid_small_areas(dbt.config.get("deid_release_json"), dbt.ref("deid_small_area_inputs"))
