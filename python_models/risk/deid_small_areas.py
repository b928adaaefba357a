"""Thin dbt Python model: El Emam et al. 2010's small-area models on the release's areas.

Reads ``deid_small_area_inputs`` (areas at the released level of the geography and above, with
population, source records and MaxCombs) and applies El Emam et al. 2010 equations 1-4
(centred/scaled
MaxCombs and population, logistic models of uniqueness above 5% and 20%, flag when the predicted
probability exceeds 0.5) via :func:`dbt_deid.glue.risk.small_areas_frame`. Inputs outside
the fitted range (MaxCombs 6-718,848, populations 200-78,457) are logged as warnings. Empty when
the release declares no ``small_areas``.
"""

import json


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_deid.dbt_entry import dbt_logger, small_areas_frame, to_pandas

    release = json.loads(dbt.config.get("deid_release_json"))
    inputs = to_pandas(dbt.ref("deid_small_area_inputs"))
    return small_areas_frame(inputs, release, logger=dbt_logger())
