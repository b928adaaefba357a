{{ config(enabled=dbt_deid.release_enabled()) }}
{%- if dbt_deid.release_enabled() -%}
{%- set rcfg = dbt_deid.risk_suite_config() -%}
{{ dbt_deid.suppression_by_sql(rcfg.release, ref('deid_suppressed'), rcfg.by) }}
{%- endif %}
