{#- The risk summary of a release (deid_diagnostics' 'risk_summary' rows): risk_summary_sql per
    verified combination for the generalized data before suppression (stage 'generalized',
    `generalized_patterns`: deid_patterns' current tuples) and for the published release (stage
    'published', `published_patterns`: deid_suppressed_patterns), both pattern tables with the
    count `n`; the published stage carries the exact check (El Emam et al. 2011, discharge PUMF:
    the smallest set of released records consistent with a record's true values, a suppressed
    cell matching anything, and the records whose set is below k), read from the distribution
    `exact` (exact_distribution_sql over deid_suppressed_patterns' exact columns), never computed
    again. -#}
{% macro risk_summary_rows_sql(cfg, generalized_patterns, published_patterns, exact) -%}
  {{ return(dbt_deid.own(adapter.dispatch('risk_summary_rows_sql', 'dbt_deid'))(cfg, generalized_patterns, published_patterns, exact)) }}
{%- endmacro %}

{% macro default__risk_summary_rows_sql(cfg, generalized_patterns, published_patterns, exact) -%}
  with deid_classes__ as (
    select * from ({{ dbt_deid.risk_summary_sql(generalized_patterns, cfg.verified_combinations, cfg.k, cfg.tau, 'generalized', 'n') }}) as g
    union all
    select * from ({{ dbt_deid.risk_summary_sql(published_patterns, cfg.verified_combinations, cfg.k, cfg.tau, 'published', 'n') }}) as p
  ),
  deid_exact__ as (
    select combination, min(consistent) as min_consistent,
      cast(coalesce(sum(case when consistent < {{ cfg.k }} then records else 0 end), 0) as {{ dbt.type_bigint() }}) as records_below_k
    from {{ exact }}
    group by combination
  )
  select c.*,
    case when c.stage = 'published' then e.min_consistent end as min_consistent_exact,
    case when c.stage = 'published' then e.records_below_k end as records_below_k_exact
  from deid_classes__ as c
  left join deid_exact__ as e on e.combination = c.combination
{%- endmacro %}
