{{ config(enabled=dbt_deid.claims_release_enabled(), materialized='view', tags=["deid_claims"]) }}
{%- if dbt_deid.claims_release_enabled() -%}
{%- set cfg = dbt_deid.claims_release_config() -%}
-- depends_on: {{ ref('dbt_deid', 'deid_claims_input_patients') }}
select * from {{ dbt_deid.claims_relation(cfg.claims) }}
{%- endif %}
