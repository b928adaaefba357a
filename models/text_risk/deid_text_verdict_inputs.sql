{{ config(enabled=dbt_deid.text_release_enabled(), tags=["deid_text"]) }}
{%- if dbt_deid.text_release_enabled() -%}
{#- What the text verdict assesses, fingerprinted just before the risk assessment reads it
    (review 9, G1; macros/gates/verdict_binding.sql): one row per relation (the documents,
    annotations and detections inputs, the staged documents and detections the published table
    is computed from, the direct and quasi-identifier counts and the corpus size) with its row
    count and fingerprint, the md5 of the settings and this build's invocation id.
    deid_text_risk_assessment reads it and records the invocation id; the publish gate
    text_verdict_bound refuses the release when the settings or any fingerprint differ now.
    Built only with every package model upstream of it in the same invocation, and only as a
    table (a view would compute the fingerprints anew at every read; review r9-final, F1). -#}
{{ dbt_deid.verdict_inputs_sql('text') }}
{%- endif %}
