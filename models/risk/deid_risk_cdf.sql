{{ config(enabled=dbt_deid.release_enabled()) }}
{%- if dbt_deid.release_enabled() -%}
{%- set cfg = dbt_deid.release_config() -%}
select * from {{ ref('deid_risk_cdf_unsuppressed') }}
union all
select * from ({{ dbt_deid.risk_cdf_sql(ref('deid_suppressed'), cfg.record_id, cfg.combinations, 'published') }}) as p
{%- endif %}
