{{ config(enabled=dbt_deid.release_enabled()) }}
{%- if dbt_deid.release_enabled() -%}
{%- set cfg = dbt_deid.release_config() -%}
{{ dbt_deid.apply_suppression_sql(cfg, ref('deid_generalized'), ref('deid_suppression_map')) }}
{%- endif %}
