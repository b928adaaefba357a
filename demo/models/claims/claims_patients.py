"""Synthetic HHP-like patients (El Emam et al. 2012, Table 2) from
``dbt_deid.tools.synthetic.claims.generate_hhp``.

``member_id, age, age_group, sex, dih_y2, dih_y3, pcp_id``; vars ``claims_patients`` (rows) and
``claims_seed``. Raw ids: direct identifiers the claims release pseudonymizes.
"""

from typing import Any


def model(dbt: Any, session: Any) -> Any:
    """The patients table of the generator (same rows and seed as ``claims_claims``)."""
    dbt.config(materialized="table")
    from dbt_deid.tools.demo_entry import generate_hhp

    return generate_hhp(int(dbt.config.get("rows")), int(dbt.config.get("seed"))).patients
