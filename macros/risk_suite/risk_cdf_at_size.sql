{#- The tail of risk_cdf_sql, shared by its default and PostgreSQL forms (El Emam et al. 2009,
    CJHP, Figure 4): `at_size` (per combination of `combinations`, the records at each class
    size f, read from `sizes_<i>`, the histogram of the i-th distinct column set of `keys`; and
    for the whole release the records' smallest class from `patterns`), then per risk value
    r = 1/f the records at r and the records and share at or below r. The caller's WITH
    defines `patterns` and `sizes_<i>`. -#}
{% macro risk_cdf_at_size_sql(stage, combinations, stage_combos, keys) -%}
  at_size as (
    {%- for b in stage_combos %}
    select {{ dbt_deid.literal(combinations[loop.index0] | join('+')) }} as combination, f, records
    from sizes_{{ keys.index(b | sort | join(',')) + 1 }}
    union all
    {%- endfor %}
    select '(all combinations)' as combination, smallest_class_size as f, sum(n) as records
    from patterns
    group by smallest_class_size
  )
  select {{ dbt_deid.literal(stage) }} as stage,
    combination,
    1.0 / f as risk,
    f as class_size,
    cast(records as {{ dbt.type_bigint() }}) as records,
    cast(sum(records) over (partition by combination order by f desc rows between unbounded preceding and current row) as {{ dbt.type_bigint() }}) as cumulative_records,
    1.0 * sum(records) over (partition by combination order by f desc rows between unbounded preceding and current row)
      / sum(records) over (partition by combination) as cumulative_share
  from at_size
{%- endmacro %}
