{#- The exact prosecutor check (El Emam et al. 2011, discharge PUMF, "Equivalence Classes": the
    number of released records consistent with a record's true values, a suppressed cell
    consistent with anything, a NULL true value equal to no released value), computed once per
    build as columns of the released pattern table deid_suppressed_patterns (issue 33, item 3:
    the model deid_exact_consistent folded into it, session 13). `patterns` (a CTE or relation:
    released `<qi>`, true `<qi>__generalized`, count `n`) with, per verified combination i
    (1-based, in the order of `combinations`), `deid_consistent_<i>`: the size of the
    consistent set of the row's true tuple on that combination (exact_consistent_sql, unpruned,
    its counts joined back to the rows by the true tuple, NULL matching NULL), and
    `deid_exact_combinations`: the combinations the columns were computed for (JSON), which the
    readers check against the settings of now. Counts only; the true values stay where they
    were (the working schema). The distribution the gate, the diagnostics and the report read is
    exact_distribution_sql over these columns. `masks[i]`: the suppression masks of
    combination i (null_masks' form) of the rows of `patterns`. -#}
{% macro exact_consistent_columns_sql(patterns, combinations, masks) -%}
  {{ return(dbt_deid.own(adapter.dispatch('exact_consistent_columns_sql', 'dbt_deid'))(patterns, combinations, masks)) }}
{%- endmacro %}

{% macro default__exact_consistent_columns_sql(patterns, combinations, masks) -%}
  select r.*,
    {%- for b in combinations %}
    cast(coalesce(e{{ loop.index }}.consistent, 0) as {{ dbt.type_bigint() }}) as deid_consistent_{{ loop.index }},
    {%- endfor %}
    cast({{ dbt_deid.literal(tojson(combinations)) }} as {{ dbt.type_string() }}) as deid_exact_combinations
  from {{ patterns }} as r
  {%- for b in combinations %}
  {%- set e = 'e' ~ loop.index %}
  {%- set tru = [] -%}{%- set ts = [] -%}
  {%- for c in b -%}{%- do tru.append(dbt_deid.ident(c ~ '__generalized')) -%}{%- do ts.append('t' ~ loop.index0) -%}{%- endfor %}
  left join ({{ dbt_deid.exact_consistent_sql(patterns, b, 'n', masks=masks[loop.index0], keep_tuples=true) }}) as {{ e }}
    on {{ dbt_deid.null_safe_equal_sql('r', e, tru, ts) }}
  {%- endfor %}
{%- endmacro %}
