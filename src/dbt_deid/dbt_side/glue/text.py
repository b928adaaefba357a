"""The text release's Python model (Scaiano, El Emam et al. 2016): counts in, risk table out.

:func:`deid_text_risk_assessment` is the body of the dbt Python model of that name; the measures
are :func:`dbt_deid.text_risk.assessment.assess_frame`. Nothing here imports dbt.
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from dbt_deid.dbt_side.dbt_logger import dbt_logger
from dbt_deid.dbt_side.glue.frames import bind_verdict, to_pandas
from dbt_deid.text_risk.assessment import assess_frame

#: The settings of var ``deid_text_release`` that :func:`assess_frame` takes (absent or null
#: ones take the core's defaults).
SETTINGS = ("h", "tau", "attempt", "iterations", "seed", "direct_cutoff", "quasi_cutoff")


def deid_text_risk_assessment(
    release_json: str, direct_counts: Any, quasi_counts: Any, corpus_size: Any,
    verdict_inputs: Any,
) -> pd.DataFrame:
    """The dbt Python model ``deid_text_risk_assessment``: the text release's risk of
    re-identification (Scaiano, El Emam et al. 2016).

    Reads the two aggregate tables the SQL models counted (``direct_counts``,
    ``deid_text_direct_counts``: ``type, s, s_caught``; ``quasi_counts``,
    ``deid_text_quasi_counts``: ``instances, caught, values, s_q``) and ``n`` from
    ``corpus_size`` (``deid_text_corpus_size``), then calls :func:`assess_frame`: the closed
    forms (equations 16-19), the Monte Carlo distributions (equations 20-21) with their 95%
    intervals and the two verdicts (section 2.3.9). Returns one row per measure (``direct``,
    ``direct_benchmark``, ``quasi``): ``measure, point, mean, lower, upper, limit, passed``.
    ``release_json`` is the config ``deid_text_release_json`` (var ``deid_text_release`` rendered
    as JSON, validated by the ``text_release_config`` macro); only counts are logged. Each
    row carries ``settings_md5`` and ``inputs_invocation_id``
    (:func:`dbt_deid.dbt_side.glue.frames.bind_verdict`: the settings and the fingerprinted
    inputs, ``deid_text_verdict_inputs``, the publish gate text_verdict_bound checks).
    """
    release = json.loads(release_json)
    settings = {k: release[k] for k in SETTINGS if k in release and release[k] is not None}
    # Monte Carlo draws follow the row order: sort by type as the core's direct_counts does, so a
    # seed reproduces the same intervals whatever order the warehouse returns.
    direct = to_pandas(direct_counts).sort_values("type", kind="stable")
    direct = direct.reset_index(drop=True)
    quasi = to_pandas(quasi_counts)
    size = to_pandas(corpus_size)
    n = int(size["n"].iloc[0])
    log = dbt_logger()
    log.info(
        f"dbt_deid: deid_text_risk_assessment: {n} documents, {len(direct)} direct types,"
        f" {int(quasi['instances'].iloc[0])} quasi-identifier instances,"
        f" {settings.get('iterations', 'default')} Monte Carlo iterations"
    )
    frame = assess_frame(direct, quasi, n, logger=log, **settings)
    return bind_verdict(frame, release_json, verdict_inputs, model="deid_text_risk_assessment")
