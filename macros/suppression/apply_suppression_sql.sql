{#- Apply the suppression map returned by the Python core to the records. Records of a pattern
    are numbered by record id; map rows give, per pattern, which record ranks get which cells
    suppressed (patterns absent from the map keep their values; a row with rank_from = 1 and
    rank_to >= n, the pattern's record count, covers all its records). Output: record id, released
    value `<qi>` (NULL = suppressed), the true value at the released level `<qi>__generalized`
    and the original `<qi>__original`, once per source column as in deid_generalized
    (original_value_sources). The map's table also holds the release's advice, rows of their
    own (advice__kind not null: dbt_deid.dbt_side.glue.advice.map_with_advice), inert (null
    keys, n 0, an empty rank range, no flag) and left out here by their n 0 (a map row is a
    pattern's, n >= 1; a map without advice columns reads the same). -#}
{% macro apply_suppression_sql(cfg, generalized, suppression_map, keys=none) -%}
  {{ return(dbt_deid.own(adapter.dispatch('apply_suppression_sql', 'dbt_deid'))(cfg, generalized, suppression_map, keys)) }}
{%- endmacro %}

{% macro default__apply_suppression_sql(cfg, generalized, suppression_map, keys=none) -%}
  {%- set rid = dbt_deid.ident(cfg.record_id) -%}
  {%- set cols = [] -%}{%- for q in (keys or cfg.qi_names) -%}{%- do cols.append(dbt_deid.ident(q)) -%}{%- endfor -%}
  {#- `keys`: the map's key columns when not the QIs (a refresh's pairs, some of them null:
      matched null-safely with plain equalities, null_safe_equal_sql, so the join is hashed;
      `a = b or (a is null and b is null)` on the 36 pair columns of the living demo made DuckDB
      nest the loops: 394,000 records x 100,000 map rows, over 10 minutes) -#}
  {%- set sources = dbt_deid.original_value_sources(cfg) -%}
  {#- When every map row covers all the records of its pattern (rank_from = 1 and rank_to >= n,
      the pattern's record count: what the core gives when it suppresses whole patterns, as at
      24 million records), no record needs a rank: records are joined to the map on their
      pattern alone, with no window over the records (issue 18: `deid_suppressed` 140 s -> 50 s
      at 24 million records, bench/bench_scale.py). The map is read first (at run time only;
      the general form otherwise). -#}
  {%- set whole = dbt_deid.can_inspect(suppression_map) and (run_query('select count(*) from ' ~ suppression_map ~ ' where not (rank_from = 1 and rank_to >= n)').rows[0][0] | int) == 0 -%}
  with ranked as (
    {%- if whole %}
    select g.* from {{ generalized }} as g
    {%- else %}
    select g.*, row_number() over (partition by {{ cols | join(', ') }} order by {{ rid }}) as deid_rank__
    from {{ generalized }} as g
    {%- endif %}
  )
  select
    r.{{ rid }} as {{ rid }}
    {%- for q in cfg.qi_names %}
    {%- set c = dbt_deid.ident(q) %}
    , case when m.{{ dbt_deid.ident(q ~ '__suppressed') }} then null else r.{{ c }} end as {{ c }}
    , r.{{ c }} as {{ dbt_deid.ident(q ~ '__generalized') }}
    {%- if sources[q] == q %}
    , r.{{ dbt_deid.ident(q ~ '__original') }} as {{ dbt_deid.ident(q ~ '__original') }}
    {%- endif %}
    {%- endfor %}
  from ranked as r
  left join (select * from {{ suppression_map }} where n > 0) as m
    on {% if keys %}{{ dbt_deid.null_safe_equal_sql('r', 'm', cols, cols) }}{% else %}{% for c in cols %}r.{{ c }} = m.{{ c }}{% if not loop.last %} and {% endif %}{% endfor %}{% endif %}{% if not whole %} and r.deid_rank__ between m.rank_from and m.rank_to{% endif %}
{%- endmacro %}

{#- Spark: the same query, the records' join with the map a sort-merge join
    (merge_join_hint): the map is pattern-level, millions of rows at national scale, yet a few
    MB of Parquet, which Spark would broadcast (issue 37). -#}
{% macro spark__apply_suppression_sql(cfg, generalized, suppression_map, keys=none) -%}
  {{ return(dbt_deid.merge_join_hint(dbt_deid.default__apply_suppression_sql(cfg, generalized, suppression_map, keys), '\\b(select)(?=\\s+r\\.)', ['m'], 1)) }}
{%- endmacro %}
