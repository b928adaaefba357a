{{ config(enabled=dbt_deid.claims_release_enabled(), tags=["deid_claims"]) }}
{%- if dbt_deid.claims_release_enabled() -%}
{#- What the claims verdict assesses, fingerprinted just before LOLA and the attack read it
    (review 9, G1; macros/gates/verdict_binding.sql): one row per relation (the patients and
    claims inputs, the preprocessed patients, D1, D2, D2 with ids, the hierarchies, the attack 2
    population) with its row count and fingerprint, the md5 of the settings and this build's
    invocation id. deid_claims_lola reads it and records the invocation id; the publish gate
    claims_verdict_bound refuses the release when the settings or any fingerprint differ now.
    Built only with every package model upstream of it in the same invocation, and only as a
    table (a view would compute the fingerprints anew at every read; review r9-final, F1). -#}
{{ dbt_deid.verdict_inputs_sql('claims') }}
{%- endif %}
