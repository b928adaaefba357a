{{ config(enabled=dbt_deid.release_enabled()) }}
{%- if dbt_deid.release_enabled() -%}
{%- set cfg = dbt_deid.release_config() -%}
{%- if execute -%}
  {%- do dbt_deid.assert_release_inputs(cfg, ref('deid_hierarchy')) -%}
{%- endif -%}
{%- if dbt_deid.ola_enabled() %}
-- depends_on: {{ ref('deid_ola_levels') }} (the levels chosen by OLA)
{% endif -%}
{{ dbt_deid.generalize_sql(cfg, ref('deid_hierarchy')) }}
{%- endif %}
