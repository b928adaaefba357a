{{ config(enabled=dbt_deid.release_enabled()) }}
{%- if dbt_deid.release_enabled() -%}
{%- set cfg = dbt_deid.release_config() -%}
{#- Read from the pattern tables (one row per distinct tuple with its record count n): the same
    figures as from the record-level models, from fewer rows. -#}
with classes as (
  {{ dbt_deid.risk_summary_sql(ref('deid_patterns'), cfg.combinations, cfg.k, cfg.tau, 'generalized', 'n') }}
  union all
  {{ dbt_deid.risk_summary_sql(ref('deid_suppressed_patterns'), cfg.combinations, cfg.k, cfg.tau, 'published', 'n') }}
),
exact as (
  {{ dbt_deid.exact_risk_summary_sql(ref('deid_suppressed_patterns'), cfg.combinations, cfg.k, 'n') }}
)
select c.*,
  case when c.stage = 'published' then e.min_consistent end as min_consistent_exact,
  case when c.stage = 'published' then e.records_below_k end as records_below_k_exact
from classes as c
left join exact as e on e.combination = c.combination
{%- endif %}
