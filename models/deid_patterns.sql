{{ config(enabled=dbt_deid.release_enabled()) }}
{%- if dbt_deid.release_enabled() -%}
{%- set cfg = dbt_deid.release_config() -%}
{{ dbt_deid.pattern_counts_sql(ref('deid_generalized'), cfg.qi_names) }}
{%- endif %}
