{#- The released pattern table (deid_suppressed_patterns) from the pattern table and the
    suppression map, without reading the records (issue 33: "the suppression model hands back
    the released pattern table"; the record-level released table is read at most 4 times per
    build). apply_suppression_sql gives the records of a pattern (its `n` records, ranked
    1..n) the cells of the map row whose rank range holds their rank; so a map row covers
    min(rank_to, n) - max(rank_from, 1) + 1 of them (none when negative), the pattern's other
    records keep every value, and the counts do not depend on which records the ranks are.
    Output: each QI's released value `<qi>` (NULL = suppressed) and true value at the released
    level `<qi>__generalized` (dbt_deid.pattern_columns), and the record count n, as
    pattern_counts_sql gives on the records.

    Only for the plain chain (the map keyed by the QIs, deid_patterns the generalized records
    grouped by them); the gate table proves every build that the result is the checked release
    grouped (checked_patterns_problems), so a pattern table or map that does not describe the
    records (rebuilt apart from them) refuses the release instead of passing unnoticed. The
    map's advice rows (advice__kind not null, n 0) are left out by their n. -#}
{% macro released_patterns_sql(cfg, patterns, suppression_map) -%}
  {{ return(dbt_deid.own(adapter.dispatch('released_patterns_sql', 'dbt_deid'))(cfg, patterns, suppression_map)) }}
{%- endmacro %}

{% macro default__released_patterns_sql(cfg, patterns, suppression_map) -%}
  {%- set b = dbt.type_bigint() -%}
  {%- set on = [] -%}{%- set keys = [] -%}{%- set flags = [] -%}{%- set unflagged = [] -%}{%- set out = [] -%}{%- set cols = [] -%}
  {%- for q in cfg.qi_names -%}
    {%- set c = dbt_deid.ident(q) -%}{%- set f = dbt_deid.ident(q ~ '__suppressed') -%}
    {%- do on.append('m.' ~ c ~ ' = p.' ~ c) -%}
    {%- do keys.append('p.' ~ c) -%}
    {%- do flags.append('m.' ~ f ~ ' as ' ~ f) -%}
    {%- do unflagged.append('false as ' ~ f) -%}
    {%- do out.append('case when ' ~ f ~ ' then null else ' ~ c ~ ' end as ' ~ c) -%}
    {%- do out.append(c ~ ' as ' ~ dbt_deid.ident(q ~ '__generalized')) -%}
    {%- do cols.append(c) -%}{%- do cols.append(dbt_deid.ident(q ~ '__generalized')) -%}
  {%- endfor -%}
  with covered as (
    select {{ keys | join(', ') }}, {{ flags | join(', ') }},
      cast(least(m.rank_to, p.n) - greatest(m.rank_from, 1) + 1 as {{ b }}) as n
    from {{ patterns }} as p
    inner join (select * from {{ suppression_map }} where n > 0) as m on {{ on | join(' and ') }}
  ),
  parts as (
    select * from covered where n > 0
    union all
    select {{ keys | join(', ') }}, {{ unflagged | join(', ') }}, cast(p.n - coalesce(c.n, 0) as {{ b }}) as n
    from {{ patterns }} as p
    left join (
      select {% for q in cfg.qi_names %}{{ dbt_deid.ident(q) }}, {% endfor %}sum(n) as n
      from covered where n > 0
      group by {% for q in cfg.qi_names %}{{ dbt_deid.ident(q) }}{% if not loop.last %}, {% endif %}{% endfor %}
    ) as c on {% for q in cfg.qi_names %}c.{{ dbt_deid.ident(q) }} = p.{{ dbt_deid.ident(q) }}{% if not loop.last %} and {% endif %}{% endfor %}
  )
  select {{ cols | join(', ') }}, cast(sum(n) as {{ b }}) as n
  from (select {{ out | join(', ') }}, n from parts where n > 0) as r
  group by {{ cols | join(', ') }}
{%- endmacro %}

{#- Spark: the same query, its joins of the pattern table `p` (with the map, and with the
    covered counts) sort-merge joins (merge_join_hint): the map and the pattern table are
    pattern-level, millions of rows at national scale, yet a few MB of Parquet, which Spark
    would broadcast (issue 37: deid_suppressed_patterns failed at 2,375,331 records). -#}
{% macro spark__released_patterns_sql(cfg, patterns, suppression_map) -%}
  {{ return(dbt_deid.merge_join_hint(dbt_deid.default__released_patterns_sql(cfg, patterns, suppression_map), '\\b(select)(?=\\s+p\\.)', ['p'], 2)) }}
{%- endmacro %}
