"""dbt Python model ``deid_population_risk``: reads its refs and configs and calls
:func:`dbt_deid.dbt_side.glue.risk.deid_population_risk`."""


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_deid.dbt_side.entry import deid_population_risk

    return deid_population_risk(
        dbt.config.get("deid_release_json"),
        dbt.ref("deid_suppressed_patterns"),
        dbt.ref("deid_population_patterns"),
    )
