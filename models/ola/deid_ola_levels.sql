{{ config(enabled=dbt_deid.ola_enabled()) }}
{%- if dbt_deid.ola_enabled() -%}
{%- set cfg = dbt_deid.release_config() -%}
{{ dbt_deid.ola_levels_sql(cfg, ref('deid_ola_search'), ref('deid_hierarchy')) }}
{%- endif %}
