{{ config(enabled=dbt_deid.claims_release_enabled(), tags=["deid_claims"]) }}
{%- if dbt_deid.claims_release_enabled() -%}
{%- set cfg = dbt_deid.claims_release_config() -%}
{#- The patients of the release: pseudonymized, stigmatized patients removed, the top_code.patients
    columns top-coded (least(value, threshold); missing stays missing). -#}
{{ dbt_deid.claims_top_code_sql(cfg, 'patients', ref('dbt_deid', 'deid_claims_retained_patients'), ref('dbt_deid', 'deid_claims_top_code_thresholds')) }}
{%- endif %}
