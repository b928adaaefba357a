"""Thin dbt Python model: the text release's risk of re-identification (Scaiano, El Emam 2016).

Reads the two aggregate tables the SQL models counted (``deid_text_direct_counts``: ``type, s,
s_caught``; ``deid_text_quasi_counts``: ``instances, caught, values, s_q``) and ``n`` from
``deid_text_corpus_size``, then calls :func:`dbt_deid.text_risk.assess_frame`: the closed forms
(equations 16-19), the Monte Carlo distributions (equations 20-21) with their 95% intervals and
the two verdicts (section 2.3.9). Returns one row per measure (``direct``, ``direct_benchmark``,
``quasi``): ``measure, point, mean, lower, upper, limit, passed``. Settings come from the YAML
config ``deid_text_release_json`` (the var ``deid_text_release`` rendered as JSON, validated by
the ``text_release_config`` macro); only counts are logged.
"""

import json
from typing import Any

SETTINGS = ("h", "tau", "attempt", "iterations", "seed", "direct_cutoff", "quasi_cutoff")


def model(dbt: Any, session: Any) -> Any:
    """Assess the counted corpus; settings absent from the release take the core's defaults."""
    dbt.config(materialized="table")
    from dbt_deid.dbt_entry import assess_frame, dbt_logger, to_pandas

    release = json.loads(dbt.config.get("deid_text_release_json"))
    settings = {k: release[k] for k in SETTINGS if k in release and release[k] is not None}
    # Monte Carlo draws follow the row order: sort by type as the core's direct_counts does, so a
    # seed reproduces the same intervals whatever order the warehouse returns.
    direct = to_pandas(dbt.ref("deid_text_direct_counts")).sort_values("type", kind="stable")
    direct = direct.reset_index(drop=True)
    quasi = to_pandas(dbt.ref("deid_text_quasi_counts"))
    size = to_pandas(dbt.ref("deid_text_corpus_size"))
    n = int(size["n"].iloc[0])
    log = dbt_logger()
    log.info(
        f"dbt_deid: deid_text_risk_assessment: {n} documents, {len(direct)} direct types,"
        f" {int(quasi['instances'].iloc[0])} quasi-identifier instances,"
        f" {settings.get('iterations', 'default')} Monte Carlo iterations"
    )
    return assess_frame(direct, quasi, n, logger=log, **settings)
