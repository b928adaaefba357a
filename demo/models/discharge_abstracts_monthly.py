"""Synthetic discharge abstracts on file after var ``demo_month`` months: the source of the
demo's living line (the analytical file, release discharge_analytical).

Thin: calls the seeded generator of the pip package (month 1: ``demo_month_rows`` abstracts;
each later month adds as many, withdraws 1% and corrects 0.1% of the diagnoses on file).
"""


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_deid.tools.demo_entry import discharge_months

    return discharge_months(int(dbt.config.get("rows")), int(dbt.config.get("month")),
                            seed=int(dbt.config.get("seed")))
