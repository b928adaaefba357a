"""The body of the dbt Python model ``deid_suppression_map`` (and of every extra release's
copy): the suppression map (:mod:`dbt_deid.dbt_side.glue.release`) followed by the release's
advice (:mod:`dbt_deid.dbt_side.glue.advice`), one table since session 13 (issue 33 item 3:
the model ``deid_release_advice`` is folded into this one)."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from dbt_deid.dbt_side.dbt_logger import dbt_logger
from dbt_deid.dbt_side.glue.advice import map_with_advice, release_advice_rows
from dbt_deid.dbt_side.glue.release import suppression_map


def deid_suppression_map(release_json: str, patterns: Any, hierarchy: Any = None
                         ) -> pd.DataFrame:
    """The dbt Python model ``deid_suppression_map``: the release's combinations suppression
    map (El Emam et al. 2011, discharge PUMF, "Combinations Suppression Algorithm"; OLA's record
    suppression, El Emam et al. 2012, "Base Algorithm", when the release searches with OLA),
    followed by the release's advice (issue 35; the model deid_release_advice before session
    13, issue 33 item 3).

    ``patterns`` is ``deid_patterns`` (distinct QI tuples with counts); ``release_json`` the
    model's config ``deid_release_json`` (the release settings rendered as JSON). The map is
    what ``deid_suppressed`` joins back onto the records
    (:func:`~dbt_deid.dbt_side.glue.release.suppression_map`). With
    ``hierarchy`` (``deid_hierarchy``) the advice is computed on the map just made
    (:func:`dbt_deid.dbt_side.glue.advice.release_advice_rows`: a passing release's from the
    map's flags and the pattern table's counts only) and appended as inert rows of their own
    (:func:`dbt_deid.dbt_side.glue.advice.map_with_advice`), which the publish step's refusal
    message, the report and ``python -m dbt_deid advise`` read; the advice never fails the
    model.
    """
    out = suppression_map(patterns, json.loads(release_json), model="deid_suppression_map")
    if hierarchy is None:
        return out
    advice = release_advice_rows(release_json, patterns, hierarchy, out)  # never raises
    try:
        return map_with_advice(out, advice)
    except Exception as exc:  # noqa: BLE001 - the advice never fails the map
        # the map alone: its readers find no advice column and show no advice
        dbt_logger().warning(f"dbt_deid: deid_suppression_map: advice not stored"
                             f" ({type(exc).__name__})")
        return out
