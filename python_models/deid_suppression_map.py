"""dbt Python model ``deid_suppression_map``: reads its refs and configs and calls
:func:`dbt_deid.dbt_side.glue.release.deid_suppression_map`."""


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_deid.dbt_side.entry import deid_suppression_map

    return deid_suppression_map(
        dbt.config.get("deid_release_json"),
        dbt.ref("deid_patterns"),
        dbt.ref("deid_hierarchy"),
    )
