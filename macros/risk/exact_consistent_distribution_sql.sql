{#- The exact prosecutor check's full distribution (El Emam et al. 2011, discharge PUMF,
    "Equivalence Classes"; the definitive count of the guarantee): per combination and per size
    of the consistent set, the records whose true values are consistent with that many released
    records (exact_consistent_sql, unpruned). Counts only, no QI value. For any relation; the
    package's release computes the counts once per build as columns of deid_suppressed_patterns
    instead (exact_consistent_columns_sql; the model deid_exact_consistent ran this until
    session 13) and reads the distribution from them (exact_distribution_sql). -#}
{% macro exact_consistent_distribution_sql(relation, combinations, count_column=none) -%}
  {{ return(dbt_deid.own(adapter.dispatch('exact_consistent_distribution_sql', 'dbt_deid'))(relation, combinations, count_column)) }}
{%- endmacro %}

{% macro default__exact_consistent_distribution_sql(relation, combinations, count_column=none) -%}
  {%- set masks = dbt_deid.null_masks(relation, combinations) -%}
  {%- for b in combinations %}
  select {{ dbt_deid.literal(b | join('+')) }} as combination,
    consistent,
    cast(sum(n_true) as {{ dbt.type_bigint() }}) as records
  from ({{ dbt_deid.exact_consistent_sql(relation, b, count_column, masks=masks[loop.index0]) }}) as x
  group by consistent
  {%- if not loop.last %}
  union all
  {%- endif %}
  {%- endfor %}
{%- endmacro %}
