"""Thin dbt Python model: sample and population uniqueness of the published release.

El Emam et al. 2010 (small areas), "Estimating Uniqueness": the Zayatz (1991) estimate and the
Pitman sampling formula (maximum-likelihood theta, alpha; expected population uniques, Hoshino
2001), chosen by the Dankar et al. (2012) rule, per protected combination
(:func:`dbt_deid.glue.risk.uniqueness_frame`). Reads the pattern table
``deid_suppressed_patterns`` (the estimators need only the class sizes), never the records.
Built only when the release gives a sampling fraction, population size or population relation.
"""

import json


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_deid.dbt_entry import dbt_logger, to_pandas, uniqueness_frame

    release = json.loads(dbt.config.get("deid_release_json"))
    return uniqueness_frame(
        to_pandas(dbt.ref("deid_suppressed_patterns")),
        to_pandas(dbt.ref("deid_population_patterns")),
        release, logger=dbt_logger(),
    )
