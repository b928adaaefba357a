"""dbt Python model ``deid_algorithm_comparison``: reads its refs and configs and calls
:func:`dbt_deid.dbt_side.glue.release.deid_algorithm_comparison`."""


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_deid.dbt_side.entry import deid_algorithm_comparison

    return deid_algorithm_comparison(
        dbt.config.get("deid_release_json"),
        dbt.ref("deid_patterns"),
        dbt.ref("deid_suppressed_patterns"),
    )
