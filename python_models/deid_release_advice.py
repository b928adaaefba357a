"""dbt Python model ``deid_release_advice``: reads its refs and configs and calls
:func:`dbt_deid.dbt_side.glue.advice.deid_release_advice`."""


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_deid.dbt_side.entry import deid_release_advice

    return deid_release_advice(
        dbt.config.get("deid_release_json"),
        dbt.ref("deid_patterns"),
        dbt.ref("deid_hierarchy"),
        dbt.ref("deid_suppression_map"),
    )
