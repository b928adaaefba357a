{#- Diagnostics of the risk-measurement suite (El Emam et al. 2009 (CJHP) "Perform Diagnostics", El Emam et al. 2011
    information loss). Figures only: class sizes, risks and counts, plus category labels of
    breakdowns that hold at least k records. -#}

{#- Column names of a combination at a stage: `original` reads `<qi>__original` of
    deid_generalized, the other stages the released columns `<qi>`. `same_values` (original
    stage): QI -> the QI whose `__original` column holds its values (original_value_sources);
    QIs released from one source column then give one column, not several equal ones. The
    working tables keep one such column per source column, so the original stage of a release
    with QIs released from one source column needs it. -#}
{% macro risk_stage_columns(combination, stage, same_values=none) -%}
  {{ return(dbt_deid.own(adapter.dispatch('risk_stage_columns', 'dbt_deid'))(combination, stage, same_values)) }}
{%- endmacro %}

{% macro default__risk_stage_columns(combination, stage, same_values=none) -%}
  {%- set out = [] -%}
  {%- for c in combination -%}
    {%- set name = ((same_values or {}).get(c, c) ~ '__original') if stage == 'original' else c -%}
    {%- if name not in out -%}{%- do out.append(name) -%}{%- endif -%}
  {%- endfor -%}
  {{ return(out) }}
{%- endmacro %}

{#- Class-size histogram of one stage: per combination and class size f, the classes and the
    records in them (reuses class_sizes_sql; a suppressed value is its own category).
    `count_column`: the relation is a pattern table (deid_patterns, deid_suppressed_patterns),
    the same figures from fewer rows. -#}
{% macro class_size_histogram_sql(relation, combinations, stage, count_column=none, same_values=none) -%}
  {{ return(dbt_deid.own(adapter.dispatch('class_size_histogram_sql', 'dbt_deid'))(relation, combinations, stage, count_column, same_values)) }}
{%- endmacro %}

{% macro default__class_size_histogram_sql(relation, combinations, stage, count_column=none, same_values=none) -%}
  {%- for b in combinations %}
  select {{ dbt_deid.literal(stage) }} as stage,
    {{ dbt_deid.literal(b | join('+')) }} as combination,
    f as class_size,
    cast(count(*) as {{ dbt.type_bigint() }}) as classes,
    cast(sum(f) as {{ dbt.type_bigint() }}) as records
  from ({{ dbt_deid.class_sizes_sql(relation, dbt_deid.risk_stage_columns(b, stage, same_values), count_column) }}) as c
  group by f
  {%- if not loop.last %}
  union all
  {%- endif %}
  {%- endfor %}
{%- endmacro %}

{#- The class-size histogram of every stage read off the risk CDF (risk_cdf_sql's rows): the
    CDF's records at class size f are the records of the classes of size f, so there are
    records / f of them (exact). The same rows as class_size_histogram_sql per stage, with no
    second pass over the records; the CDF's '(all combinations)' series is not a partition
    into classes and is left out. -#}
{% macro class_size_histogram_from_cdf_sql(cdf) -%}
  {{ return(dbt_deid.own(adapter.dispatch('class_size_histogram_from_cdf_sql', 'dbt_deid'))(cdf)) }}
{%- endmacro %}

{% macro default__class_size_histogram_from_cdf_sql(cdf) -%}
  select stage, combination, class_size,
    cast(records / class_size as {{ dbt.type_bigint() }}) as classes,
    cast(records as {{ dbt.type_bigint() }}) as records
  from {{ cdf }}
  where combination <> '(all combinations)'
{%- endmacro %}

{#- El Emam et al. 2009 (CJHP) Figure 4, the cumulative distribution of record risk of one stage: for every risk
    value r = 1/f, the records at r, and the records and share of records at or below r. One
    series per combination (prosecutor risk 1/f_j of the record's class) and one for the whole
    release, `(all combinations)`: the record's largest risk over the combinations
    (record_risk_sql's smallest class). `count_column`: the relation is a pattern table, each
    row standing for that many records (same figures, fewer rows). -#}
{% macro risk_cdf_sql(relation, record_id, combinations, stage, count_column=none, same_values=none) -%}
  {{ return(dbt_deid.own(adapter.dispatch('risk_cdf_sql', 'dbt_deid'))(relation, record_id, combinations, stage, count_column, same_values)) }}
{%- endmacro %}

{% macro default__risk_cdf_sql(relation, record_id, combinations, stage, count_column=none, same_values=none) -%}
  {%- set stage_combos = [] -%}
  {%- for b in combinations -%}{%- do stage_combos.append(dbt_deid.risk_stage_columns(b, stage, same_values)) -%}{%- endfor -%}
  {#- the distinct column sets: combinations on the same columns share their class sizes -#}
  {%- set keys = [] -%}{%- set sets = [] -%}
  {%- for b in stage_combos -%}
    {%- set key = b | sort | join(',') -%}
    {%- if key not in keys -%}{%- do keys.append(key) -%}{%- do sets.append(b) -%}{%- endif -%}
  {%- endfor -%}
  {#- One GROUP BY to distinct tuples of every combination's columns, then classes and the
      records' smallest class from those patterns (each row stands for n records). #}
  with patterns as (
    {{ dbt_deid.cte_computed_once(dbt_deid.smallest_class_patterns_sql(relation, sets, count_column)) }}
  ),
  {%- for b in sets %}
  sizes_{{ loop.index }} as (
    select f, sum(f) as records
    from ({{ dbt_deid.class_sizes_sql('patterns', b, 'n') }}) as c
    group by f
  ),
  {%- endfor %}
  {{ dbt_deid.risk_cdf_at_size_sql(stage, combinations, stage_combos, keys) }}
{%- endmacro %}

{#- Suppression and missingness of the quasi-identifiers (released values, NULL = suppressed;
    the missing label = missing in the source), over all records (`by_column` = '(none)') and per
    category of each `by` column's released value. Categories with fewer than k records are
    pooled as 'other (n < k)' (a suppressed `by` value is the category '(suppressed)'); when the
    pool itself holds fewer than k records only its record count is kept (shares NULL). One row
    per by column, category and QI. -#}
{% macro suppression_by_sql(cfg, relation, by_columns, count_column=none) -%}
  {{ return(dbt_deid.own(adapter.dispatch('suppression_by_sql', 'dbt_deid'))(cfg, relation, by_columns, count_column)) }}
{%- endmacro %}

{#- With `count_column`, `relation` is a pattern table (deid_suppressed_patterns: each row counts
    that many records; the `by` columns are QIs, so their released values are in it): the same
    figures from the pattern rows, without a scan of the records. -#}
{% macro default__suppression_by_sql(cfg, relation, by_columns, count_column=none) -%}
  {%- set s = dbt.type_string() -%}
  {%- set miss = dbt_deid.literal(cfg.missing_label) -%}
  {%- set w = dbt_deid.ident(count_column) if count_column else '1' -%}
  with grouped as (
    select '(none)' as by_column, '(all records)' as category, {{ ('r.' ~ w) if count_column else w }} as deid_weight__{% for q in cfg.qi_names %}, r.{{ dbt_deid.ident(q) }}{% endfor %}
    from {{ relation }} as r
    {%- for b in by_columns %}
    union all
    select {{ dbt_deid.literal(b) }} as by_column,
      case when n.n < {{ cfg.k }} then 'other (n < k)' else n.category end as category, {{ ('r.' ~ w) if count_column else w }} as deid_weight__{% for q in cfg.qi_names %}, r.{{ dbt_deid.ident(q) }}{% endfor %}
    from (select *, coalesce(cast({{ dbt_deid.ident(b) }} as {{ s }}), '(suppressed)') as deid_category__ from {{ relation }}) as r
    inner join (
      select coalesce(cast({{ dbt_deid.ident(b) }} as {{ s }}), '(suppressed)') as category, sum({{ w }}) as n
      from {{ relation }} group by 1
    ) as n on n.category = r.deid_category__
    {%- endfor %}
  ),
  {#- Not dbt_utils.unpivot: one row of aggregates per (category, column), computed, not a
      stored column turned into rows. Every column's sums in one grouped pass over `grouped`
      (one aggregate scan, not one per QI: PostgreSQL read the materialized CTE once per QI,
      24.9 s against DuckDB's 1.1 s at 2.4 million records, issue 37), then one row per column
      from that small result. -#}
  sums as (
    select by_column, category, sum(deid_weight__) as records
    {%- for q in cfg.qi_names %},
      sum(case when {{ dbt_deid.ident(q) }} is null then deid_weight__ else 0 end) as deid_s{{ loop.index }}__,
      sum(case when {{ dbt_deid.ident(q) }} = {{ miss }} then deid_weight__ else 0 end) as deid_m{{ loop.index }}__
    {%- endfor %}
    from grouped group by by_column, category
  ),
  per_column as (
    {%- for q in cfg.qi_names %}
    select by_column, category, {{ dbt_deid.literal(q) }} as column_name, {{ loop.index }} as column_order,
      records, deid_s{{ loop.index }}__ as suppressed, deid_m{{ loop.index }}__ as missing
    from sums
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
  )
  select by_column, category, column_name, column_order,
    cast(records as {{ dbt.type_bigint() }}) as records,
    case when records >= {{ cfg.k }} then cast(suppressed as {{ dbt.type_bigint() }}) end as suppressed,
    case when records >= {{ cfg.k }} then 1.0 * suppressed / records end as suppressed_share,
    case when records >= {{ cfg.k }} then cast(missing as {{ dbt.type_bigint() }}) end as missing,
    case when records >= {{ cfg.k }} then 1.0 * missing / records end as missing_share
  from per_column
{%- endmacro %}

{#- The population relation (var deid_release.population: one row per person, or per pattern
    with `population_count_column`) generalized to the release's levels through deid_hierarchy:
    one row per distinct tuple of `<qi>` with its count `n`. NULL becomes the missing label; a
    value absent from the hierarchy becomes '(not in hierarchy)' (it matches no released value).
    Without a population relation the model is empty (the estimators then use the sampling
    fraction or population size). -#}
{% macro population_patterns_sql(rcfg, hierarchy_relation) -%}
  {{ return(dbt_deid.own(adapter.dispatch('population_patterns_sql', 'dbt_deid'))(rcfg, hierarchy_relation)) }}
{%- endmacro %}

{% macro default__population_patterns_sql(rcfg, hierarchy_relation) -%}
  {%- set cfg = rcfg.release -%}
  {%- set s = dbt.type_string() -%}
  {%- set miss = dbt_deid.literal(cfg.missing_label) -%}
  {%- if rcfg.population is none %}
  select {% for q in cfg.qi_names %}cast(null as {{ s }}) as {{ dbt_deid.ident(q) }}, {% endfor %}cast(0 as {{ dbt.type_bigint() }}) as n
  where 1 = 0
  {%- else %}
  {%- set w = ('p.' ~ dbt_deid.ident(rcfg.population_count_column)) if rcfg.population_count_column else '1' %}
  select
    {%- for q in cfg.qis %}
    case when p.{{ dbt_deid.ident(q.column) }} is null then {{ miss }} else coalesce(h{{ loop.index }}.generalized_value, '(not in hierarchy)') end as {{ dbt_deid.ident(q.name) }},
    {%- endfor %}
    cast(sum({{ w }}) as {{ dbt.type_bigint() }}) as n
  from {{ ref(rcfg.population) }} as p
  {%- for q in cfg.qis %}
  left join (
    select original_value, generalized_value from {{ hierarchy_relation }}
    where qi_name = {{ dbt_deid.literal(q.name) }} and level = {{ q.level }}
  ) as h{{ loop.index }} on h{{ loop.index }}.original_value = cast(p.{{ dbt_deid.ident(q.column) }} as {{ s }})
  {%- endfor %}
  group by {% for q in cfg.qis %}{{ loop.index }}{% if not loop.last %}, {% endif %}{% endfor %}
  {%- endif %}
{%- endmacro %}
