"""dbt Python model ``deid_ola_search``: reads its refs and configs and calls
:func:`dbt_deid.dbt_side.glue.ola.deid_ola_search`."""


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_deid.dbt_side.entry import deid_ola_search

    return deid_ola_search(
        dbt.config.get("deid_release_json"),
        dbt.ref("deid_ola_patterns"),
        dbt.ref("deid_hierarchy"),
    )
