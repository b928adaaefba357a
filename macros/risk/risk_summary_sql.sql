{#- Risk summary per combination: classes, smallest class, max risk 1/min f_j, mean risk
    (mean over records of 1/f_j = classes / records), records and share of records above tau
    (1/f_j > tau, i.e. f_j < k = ceil(1/tau)), and the discernibility metric sum f_j^2 (classes
    formed with a suppressed value as its own category). `count_column`: the relation is a
    pattern table (deid_patterns, deid_suppressed_patterns), the same figures from fewer rows. -#}
{% macro risk_summary_sql(relation, combinations, k, tau, stage, count_column=none) -%}
  {{ return(dbt_deid.own(adapter.dispatch('risk_summary_sql', 'dbt_deid'))(relation, combinations, k, tau, stage, count_column)) }}
{%- endmacro %}

{% macro default__risk_summary_sql(relation, combinations, k, tau, stage, count_column=none) -%}
  {%- for b in combinations %}
  select
    {{ dbt_deid.literal(stage) }} as stage,
    {{ dbt_deid.literal(b | join('+')) }} as combination,
    {{ k }} as k,
    {{ tau }} as tau,
    cast(sum(f) as {{ dbt.type_bigint() }}) as records,
    count(*) as classes,
    min(f) as smallest_class,
    1.0 / min(f) as max_risk,
    1.0 * count(*) / sum(f) as mean_risk,
    cast(sum(case when f < {{ k }} then 1 else 0 end) as {{ dbt.type_bigint() }}) as classes_below_k,
    cast(sum(case when f < {{ k }} then f else 0 end) as {{ dbt.type_bigint() }}) as records_above_tau,
    1.0 * sum(case when f < {{ k }} then f else 0 end) / sum(f) as share_above_tau,
    sum(1.0 * f * f) as discernibility
  from ({{ dbt_deid.class_sizes_sql(relation, b, count_column) }}) as classes
  {%- if not loop.last %}
  union all
  {%- endif %}
  {%- endfor %}
{%- endmacro %}
