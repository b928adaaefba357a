"""dbt Python model ``deid_text_risk_assessment``: reads its refs and configs and calls
:func:`dbt_deid.dbt_side.glue.text.deid_text_risk_assessment`."""


def model(dbt, session):
    dbt.config(materialized="table")
    from dbt_deid.dbt_side.entry import deid_text_risk_assessment

    return deid_text_risk_assessment(
        dbt.config.get("deid_text_release_json"),
        dbt.ref("deid_text_direct_counts"),
        dbt.ref("deid_text_quasi_counts"),
        dbt.ref("deid_text_corpus_size"),
        dbt.ref("deid_text_verdict_inputs"),
    )
