{{ config(enabled=dbt_deid.release_enabled()) }}
{%- if dbt_deid.release_enabled() -%}
{%- set cfg = dbt_deid.release_config() -%}
{{ dbt_deid.hierarchy_sql(cfg) }}
{%- endif %}
-- depends_on: {{ ref('deid_release_plan') }}
