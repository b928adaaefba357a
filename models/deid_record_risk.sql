{{ config(enabled=dbt_deid.release_enabled()) }}
{%- if dbt_deid.release_enabled() -%}
{%- set cfg = dbt_deid.release_config() -%}
{{ dbt_deid.record_risk_sql(ref('deid_suppressed'), cfg.record_id, cfg.combinations) }}
{%- endif %}
