{{ config(enabled=dbt_deid.small_areas_enabled()) }}
{%- if dbt_deid.small_areas_enabled() -%}
{{ dbt_deid.small_area_hierarchy_sql(dbt_deid.risk_suite_config()) }}
{%- endif %}
