{{ config(enabled=dbt_deid.release_enabled()) }}
{%- if dbt_deid.release_enabled() -%}
{%- set rcfg = dbt_deid.risk_suite_config() -%}
{{ dbt_deid.population_patterns_sql(rcfg, ref('deid_hierarchy')) }}
{%- endif %}
