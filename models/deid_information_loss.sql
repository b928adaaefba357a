{{ config(enabled=dbt_deid.release_enabled()) }}
{%- if dbt_deid.release_enabled() -%}
{%- set cfg = dbt_deid.release_config() -%}
{{ dbt_deid.information_loss_sql(cfg, ref('deid_suppressed'), ref('deid_hierarchy')) }}
{%- endif %}
