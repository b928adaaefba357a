{{ config(enabled=dbt_deid.ola_enabled()) }}
{%- if dbt_deid.ola_enabled() -%}
{%- set cfg = dbt_deid.release_config() -%}
{%- do dbt_deid.ola_config() -%}
{%- if execute -%}
  {%- do dbt_deid.assert_release_inputs(cfg, ref('deid_hierarchy')) -%}
{%- endif -%}
{{ dbt_deid.ola_patterns_sql(cfg, ref('deid_hierarchy')) }}
{%- endif %}
