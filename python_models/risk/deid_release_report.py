"""dbt Python model ``deid_release_report``: reads its refs and configs and calls
:func:`dbt_deid.dbt_side.glue.report.deid_release_report`."""


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_deid.dbt_side.entry import deid_release_report

    return deid_release_report(
        dbt.config.get("deid_release_json"),
        dbt.ref("deid_suppressed_patterns"),
        dbt.ref("deid_gate_results"),
        dbt.ref("deid_suppression_map"),
        dbt.ref("deid_report_inputs"),
        path=dbt.config.get("report_path"),
        project_dir=dbt.config.get("report_project_dir"),
    )
