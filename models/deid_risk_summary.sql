{{ config(enabled=dbt_deid.release_enabled()) }}
{%- if dbt_deid.release_enabled() -%}
{%- set cfg = dbt_deid.release_config() -%}
with classes as (
  {{ dbt_deid.risk_summary_sql(ref('deid_generalized'), cfg.combinations, cfg.k, cfg.tau, 'generalized') }}
  union all
  {{ dbt_deid.risk_summary_sql(ref('deid_suppressed'), cfg.combinations, cfg.k, cfg.tau, 'published') }}
),
exact as (
  {{ dbt_deid.exact_risk_summary_sql(ref('deid_suppressed'), cfg.combinations, cfg.k) }}
)
select c.*,
  case when c.stage = 'published' then e.min_consistent end as min_consistent_exact,
  case when c.stage = 'published' then e.records_below_k end as records_below_k_exact
from classes as c
left join exact as e on e.combination = c.combination
{%- endif %}
