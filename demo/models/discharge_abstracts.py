"""Synthetic discharge abstracts (El Emam et al. 2011 Table 2 shape), generated in the warehouse.

Thin: calls the seeded generator of the pip package. Rows and seed come from the vars
``demo_rows`` and ``demo_seed`` through the YAML config.
"""


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_deid.tools.demo_entry import generate_discharges

    return generate_discharges(int(dbt.config.get("rows")), seed=int(dbt.config.get("seed")))
