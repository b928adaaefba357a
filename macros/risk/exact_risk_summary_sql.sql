{#- Exact summary per combination: smallest consistent set and records whose consistent set is
    below k (`count_column`: the relation is a pattern table; `prune_k`: see
    exact_consistent_sql; the smallest set and the tuples counted are then over the tuples
    below prune_k only, NULL and 0 when none is). -#}
{% macro exact_risk_summary_sql(relation, combinations, k, count_column=none, prune_k=none, target_column=none) -%}
  {{ return(dbt_deid.own(adapter.dispatch('exact_risk_summary_sql', 'dbt_deid'))(relation, combinations, k, count_column, prune_k, target_column)) }}
{%- endmacro %}

{% macro default__exact_risk_summary_sql(relation, combinations, k, count_column=none, prune_k=none, target_column=none) -%}
  {%- set masks = dbt_deid.null_masks(relation, combinations) -%}
  {%- for b in combinations %}
  select {{ dbt_deid.literal(b | join('+')) }} as combination,
    {{ k }} as k,
    min(consistent) as min_consistent,
    cast(coalesce(sum(case when consistent < {{ k }} then n_true else 0 end), 0) as {{ dbt.type_bigint() }}) as records_below_k,
    count(*) as tuples_evaluated
  from ({{ dbt_deid.exact_consistent_sql(relation, b, count_column, prune_k, masks=masks[loop.index0], target_column=target_column) }}) as x
  {%- if not loop.last %}
  union all
  {%- endif %}
  {%- endfor %}
{%- endmacro %}
