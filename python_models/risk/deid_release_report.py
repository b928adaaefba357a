"""Thin dbt Python model: writes the release's self-contained HTML report, returns its index.

Reads the suppressed patterns (released values and the true values at the released level, with
their record counts: the GROUP BY runs in the warehouse, ``deid_suppressed_patterns``), the
population patterns and the small-area inputs; measures every protected combination with the
core (:func:`dbt_deid.glue.risk.release_assessments`: prosecutor risk and its exact
variant, El Emam et al. 2011 equations 2-3 when population information is configured, Zayatz/Pitman
uniqueness, El Emam et al. 2009 (CJHP) diagnostics, El Emam et al. 2010 small areas) and writes one
HTML file to the
configured ``report_path`` (default ``reports/<release name>.html`` relative to the dbt project
directory). The report opens with the release status from ``deid_gate_results``: every gate's
verdict and whether the release is published; a refused release's report is written to
``<name>.refused.html`` and never overwrites the published release's. It shows the settings hash
and the input fingerprint it was computed from (``deid_input_fingerprint``), as the release
manifest in ``deid_release_history`` records them. The returned frame has
one row: release, published, path, bytes, sha256, sections.
"""

import json


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_deid.dbt_entry import dbt_logger, to_pandas, write_dbt_report

    release = json.loads(dbt.config.get("deid_release_json"))
    suppressed = to_pandas(dbt.ref("deid_suppressed_patterns"))
    if len(suppressed) == 0:  # only under `dbt build --empty`: a real build stops upstream
        from dbt_deid.dbt_entry import empty_report_index

        return empty_report_index()
    return write_dbt_report(
        suppressed,
        to_pandas(dbt.ref("deid_population_patterns")),
        to_pandas(dbt.ref("deid_small_area_inputs")),
        release,
        gates=to_pandas(dbt.ref("deid_gate_results")),
        fingerprint=to_pandas(dbt.ref("deid_input_fingerprint")),
        path=dbt.config.get("report_path"),
        project_dir=dbt.config.get("report_project_dir"),
        logger=dbt_logger(),
    )
