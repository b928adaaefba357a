{{ config(enabled=dbt_deid.claims_release_enabled(), materialized='view', tags=["deid_claims"]) }}
{%- if dbt_deid.claims_release_enabled() -%}
{%- set cfg = dbt_deid.claims_release_config() -%}
{{ dbt_deid.claims_top_code_sql(cfg, 'claims', ref('dbt_deid', 'deid_claims_retained_claims'), ref('dbt_deid', 'deid_claims_top_code_thresholds')) }}
{%- endif %}
