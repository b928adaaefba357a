"""Small synthetic discharge abstracts for the integration tests (seeded)."""


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_deid.tools.demo_entry import generate_discharges

    return generate_discharges(int(dbt.config.get("rows")), seed=int(dbt.config.get("seed")))
