"""A synthetic State-Inpatient-Database-like table for attack 3 (El Emam et al. 2012, "Attack
3", Table 6) from ``dbt_deid.tools.synthetic.claims.generate_sid_visits``: one row per inpatient
visit of the claims release's patients (``claims_patients``, same rows and seed: all their
visits) and of ``claims_sid_others`` further people, with its own patient key.

``patient_id, year, age, sex, los, primary_condition_group, procedure_group``; vars
``claims_patients``, ``claims_seed`` and ``claims_sid_others``.
"""

from typing import Any


def model(dbt: Any, session: Any) -> Any:
    """The visits table of the generator."""
    dbt.config(materialized="table")
    from dbt_deid.tools.demo_entry import generate_sid_visits

    return generate_sid_visits(int(dbt.config.get("rows")), int(dbt.config.get("seed")),
                               others=int(dbt.config.get("others")))
