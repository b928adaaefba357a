{{ config(enabled=dbt_deid.release_enabled()) }}
{%- if dbt_deid.release_enabled() -%}
{%- set cfg = dbt_deid.release_config() -%}
{%- if execute -%}
  {%- do dbt_deid.assert_release_inputs(cfg, ref('deid_hierarchy')) -%}
{%- endif -%}
{{ dbt_deid.generalize_sql(cfg, ref('deid_hierarchy')) }}
{%- endif %}
