"""Diagnosis hierarchy of the synthetic code universe."""


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_deid.tools.demo_entry import diagnosis_hierarchy

    return diagnosis_hierarchy()
