{{ config(enabled=dbt_deid.claims_release_enabled(), materialized='view', tags=["deid_claims"]) }}
{%- if dbt_deid.claims_release_enabled() -%}
{%- set cfg = dbt_deid.claims_release_config() -%}
{#- The first claims model: checks both inputs (one error naming the model, table and column;
    counts only, never values), then exposes the patients as a view. -#}
-- depends_on: {{ dbt_deid.claims_relation(cfg.claims) }}
{%- if cfg.stigmatized_codes is not none %}
-- depends_on: {{ dbt_deid.claims_relation(cfg.stigmatized_codes) }}
{%- endif %}
{%- if execute and flags.WHICH in ['run', 'build'] -%}
  {%- do dbt_deid.assert_claims_inputs(cfg) -%}
{%- endif %}
select * from {{ dbt_deid.claims_relation(cfg.patients) }}
{%- endif %}
