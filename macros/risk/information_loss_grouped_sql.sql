{#- `count_column`: `suppressed` is a pattern table of the records (each row counts that many
    records; information_loss_patterns_sql) and the query continues its WITH clause, unless
    `standalone` (a query of its own reading a CTE of the enclosing query: deid_diagnostics). -#}
{% macro information_loss_grouped_sql(cfg, suppressed, hierarchy, count_column=none, standalone=false) -%}
  {%- set qis = cfg.released_qis -%}
  {%- if qis | length == 0 -%}{{ return('select 1 as placeholder') }}{%- endif -%}
  {%- set sources = dbt_deid.original_value_sources(cfg) -%}
  {%- set d = dbt_deid.type_double() -%}
  {%- set b = dbt.type_bigint() -%}
  {%- set w = dbt_deid.ident(count_column) if count_column else none -%}
  {%- set any_null = [] -%}
  {%- for q in qis -%}{%- do any_null.append(dbt_deid.ident(q) ~ ' is null') -%}{%- endfor -%}
  {%- set sup = [] -%}{%- set ent = [] -%}{%- set prec = [] -%}
  {%- for q in qis -%}
    {%- do sup.append('(t.n - t.c' ~ loop.index ~ ')') -%}
    {%- do ent.append('e' ~ loop.index ~ '.entropy_r + e' ~ loop.index ~ '.entropy_s') -%}
    {%- if hierarchy is none -%}
      {%- do prec.append('cast(null as ' ~ dbt.type_float() ~ ')') -%}
    {%- else -%}
      {%- set spec = (cfg.qis | selectattr('name', 'equalto', q) | list)[0] -%}
      {%- do prec.append('(cast(1 as ' ~ d ~ ') - (cast(t.n - t.c' ~ loop.index ~ ' as ' ~ d ~ ') + cast(t.c' ~ loop.index ~ ' as ' ~ d ~ ') * ' ~ spec.level ~ ' / nullif(hh.h' ~ loop.index ~ ', 0)) / t.n)') -%}
    {%- endif -%}
  {%- endfor -%}
  {#- totals and each e<i> are read by every output row (cte_computed_once) -#}
  {%- set totals %}
    {%- if w %}
    select cast(coalesce(sum({{ w }}), 0) as {{ b }}) as n
    {%- for q in qis %}, cast(coalesce(sum(case when {{ dbt_deid.ident(q) }} is not null then {{ w }} else 0 end), 0) as {{ b }}) as c{{ loop.index }}{% endfor %},
      cast(coalesce(sum(case when {{ any_null | join(' or ') }} then {{ w }} else 0 end), 0) as {{ b }}) as any_suppressed
    {%- else %}
    select count(*) as n
    {%- for q in qis %}, count({{ dbt_deid.ident(q) }}) as c{{ loop.index }}{% endfor %},
      count(case when {{ any_null | join(' or ') }} then 1 end) as any_suppressed
    {%- endif %}
    from {{ suppressed }}
  {%- endset %}
  {{ ', ' if (w and not standalone) else 'with ' }}totals as (
    {{ dbt_deid.cte_computed_once(totals) }}
  )
  {%- if hierarchy is not none %}
  , heights as (
    select {% for q in qis %}max(case when qi_name = {{ dbt_deid.literal(q) }} then level end) as h{{ loop.index }}{% if not loop.last %}, {% endif %}{% endfor %}
    from {{ hierarchy }}
  )
  {%- endif %}
  {%- for q in qis %}
  {%- set r = dbt_deid.ident(q) %}{%- set o = dbt_deid.ident(sources[q] ~ '__original') %}
  , g{{ loop.index }} as (
    select o, r, n_or,
      cast(sum(case when r is not null then n_or end) over (partition by r) as {{ dbt.type_bigint() }}) as n_r,
      cast(sum(n_or) over (partition by o) as {{ dbt.type_bigint() }}) as n_o
    from (select {{ o }} as o, {{ r }} as r, {{ ('cast(sum(' ~ w ~ ') as ' ~ b ~ ')') if w else 'count(*)' }} as n_or from {{ suppressed }} group by {{ o }}, {{ r }}) as o_r
  )
  {%- set entropy %}
    select coalesce(sum(case when g.r is not null then g.n_or * -ln(1.0 * g.n_or / g.n_r) end) / ln(2.0), 0) as entropy_r,
      coalesce(sum(case when g.r is null then g.n_or * -ln(1.0 * g.n_o / t.n) end) / ln(2.0), 0) as entropy_s
    from g{{ loop.index }} as g cross join totals as t
  {%- endset %}
  , e{{ loop.index }} as (
    {{ dbt_deid.cte_computed_once(entropy) }}
  )
  {%- endfor %}
  {%- set from_items = ['totals as t'] -%}
  {%- for _ in qis -%}{%- do from_items.append('e' ~ loop.index) -%}{%- endfor -%}
  {%- if hierarchy is not none -%}{%- do from_items.append('heights as hh') -%}{%- endif -%}
  {%- set source = from_items | join(' cross join ') -%}
  {%- set rows = [] -%}
  {%- for q in qis -%}
    {%- do rows.append([[dbt_deid.literal(q), 'column_name'], [loop.index, 'column_order'],
        ['t.n', 'records'], ['t.n - t.c' ~ loop.index, 'suppressed_cells'],
        ['1.0 * (t.n - t.c' ~ loop.index ~ ') / t.n', 'share_cells_suppressed'],
        ['t.n - t.c' ~ loop.index, 'records_with_suppression'],
        ['1.0 * (t.n - t.c' ~ loop.index ~ ') / t.n', 'share_records_with_suppression'],
        [ent[loop.index0], 'non_uniform_entropy'], [prec[loop.index0], 'precision']]) -%}
  {%- endfor -%}
  {%- do rows.append([["'(all quasi-identifiers)'", 'column_name'], [0, 'column_order'],
      ['t.n', 'records'], ['(' ~ sup | join(' + ') ~ ')', 'suppressed_cells'],
      ['1.0 * (' ~ sup | join(' + ') ~ ') / (t.n * ' ~ qis | length ~ ')', 'share_cells_suppressed'],
      ['t.any_suppressed', 'records_with_suppression'],
      ['1.0 * t.any_suppressed / t.n', 'share_records_with_suppression'],
      ['(' ~ ent | join(' + ') ~ ')', 'non_uniform_entropy'],
      ['(' ~ prec | join(' + ') ~ ') / ' ~ qis | length, 'precision']]) -%}
  {#- one SELECT per row, UNION ALL; on Spark one row unpivoted (information_loss_rows_sql) -#}
  {{ dbt_deid.information_loss_rows_sql(rows, source) }}
{%- endmacro %}
