{#- The exact check's distribution (El Emam et al. 2011, discharge PUMF, "Equivalence Classes"),
    read from the columns exact_consistent_columns_sql computed once per build in the released
    pattern table `patterns` (deid_suppressed_patterns): per verified combination and per size
    of the consistent set, the records whose true values are consistent with that many released
    records (combination, consistent, records; the model deid_exact_consistent's rows before
    session 13). A GROUP BY over the pattern table, never the exact check again: the exact
    gate, the risk summary (deid_diagnostics), the report and the algorithm comparison read
    it. Counts only, no QI value. -#}
{% macro exact_distribution_sql(patterns, combinations) -%}
  {%- for b in combinations %}
  select cast({{ dbt_deid.literal(b | join('+')) }} as {{ dbt.type_string() }}) as combination,
    deid_consistent_{{ loop.index }} as consistent,
    cast(sum(n) as {{ dbt.type_bigint() }}) as records
  from {{ patterns }}
  group by deid_consistent_{{ loop.index }}
  {%- if not loop.last %}
  union all
  {%- endif %}
  {%- else %}
  select cast(null as {{ dbt.type_string() }}) as combination, cast(null as {{ dbt.type_bigint() }}) as consistent,
    cast(null as {{ dbt.type_bigint() }}) as records
  from {{ patterns }} where 1 = 0
  {%- endfor %}
{%- endmacro %}
