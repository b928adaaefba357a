"""Thin dbt Python model: sample and population uniqueness of the published release.

Seed 002 "Estimating Uniqueness": the Zayatz (1991) estimate and the Pitman sampling formula
(maximum-likelihood theta, alpha; expected population uniques, Hoshino 2001), chosen by the
Dankar et al. (2012) rule, per protected combination
(:func:`dbt_deid.glue.risk.uniqueness_frame`). Built only when the release gives a
sampling fraction, population size or population relation.
"""

import json


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_deid.dbt_entry import dbt_logger, to_pandas, uniqueness_frame

    release = json.loads(dbt.config.get("deid_release_json"))
    return uniqueness_frame(
        to_pandas(dbt.ref("deid_suppressed")), to_pandas(dbt.ref("deid_population_patterns")),
        release, logger=dbt_logger(),
    )
