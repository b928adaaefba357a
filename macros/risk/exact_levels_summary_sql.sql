{#- The exact consistent-set check of a combined view at mixed levels (issue 32, item 2; the
    relation of combined_levels_view_sql). The guarantee (El Emam et al. 2011, PUMF: every
    record's true values consistent with at least k released records, a suppressed cell
    consistent with anything) counted cell by cell at each cell's level: a record t is
    consistent with a combined row s when, for every QI of the combination, s's cell is
    suppressed or equals t's true value generalized to the level of s's cell
    (`<qi>__at_<level>`; NULL, an unknown finer value, equals no cell).

    Computed per level pattern (per QI: suppressed or the level of the cell), as
    exact_consistent_sql does per suppression mask: one left join per pattern of the rows
    grouped on their kept cells, keyed by the true values at those levels, so no count is
    multiplied. Output as exact_risk_summary_sql's: combination, k, min_consistent,
    records_below_k, tuples_evaluated. Needs `execute` (the patterns are read first). -#}
{% macro exact_levels_summary_sql(relation, combinations, k, levels) -%}
  {{ return(dbt_deid.own(adapter.dispatch('exact_levels_summary_sql', 'dbt_deid'))(relation, combinations, k, levels)) }}
{%- endmacro %}

{% macro default__exact_levels_summary_sql(relation, combinations, k, levels) -%}
  {%- set I = dbt_deid.ident -%}
  {%- for b in combinations %}
  {%- set ats = [] -%}
  {%- for q in b -%}{%- for l in levels[q] -%}{%- do ats.append(I(q ~ '__at_' ~ l)) -%}{%- endfor -%}{%- endfor -%}
  {%- set lvcols = [] -%}{%- for q in b -%}{%- do lvcols.append(I(q ~ '__level')) -%}{%- endfor -%}
  {%- set patterns = run_query('select distinct ' ~ lvcols | join(', ') ~ ' from ' ~ relation).rows %}
  select {{ dbt_deid.literal(b | join('+')) }} as combination, {{ k }} as k,
    min(consistent) as min_consistent,
    cast(coalesce(sum(case when consistent < {{ k }} then n_true else 0 end), 0) as {{ dbt.type_bigint() }}) as records_below_k,
    count(*) as tuples_evaluated
  from (
    select t.n_true,
      {%- set terms = [] %}
      {%- for pat in patterns %}
      {%- set kept = [] -%}{%- for i in range(b | length) -%}{%- if pat[i] is not none -%}{%- do kept.append(i) -%}{%- endif -%}{%- endfor -%}
      {%- if kept | length == 0 -%}
      {%- do terms.append('(select count(*) from ' ~ relation ~ ' where ' ~ lvcols | join(' is null and ') ~ ' is null)') -%}
      {%- else -%}
      {%- do terms.append('coalesce(g' ~ loop.index ~ '.n, 0)') -%}
      {%- endif -%}
      {%- endfor %}
      {{ (terms | join(' + ')) if terms else '0' }} as consistent
    from (
      select {{ ats | join(', ') }}, count(*) as n_true from {{ relation }} group by {{ ats | join(', ') }}
    ) as t
    {%- for pat in patterns %}
    {%- set kept = [] -%}{%- for i in range(b | length) -%}{%- if pat[i] is not none -%}{%- do kept.append(i) -%}{%- endif -%}{%- endfor -%}
    {%- if kept | length > 0 %}
    {%- set g = 'g' ~ loop.index %}
    left join (
      select {% for i in kept %}{{ I(b[i]) }} as p{{ i }}, {% endfor %}count(*) as n
      from {{ relation }}
      where {% for i in range(b | length) %}{{ lvcols[i] }} {{ ('= ' ~ (pat[i] | int)) if pat[i] is not none else 'is null' }}{{ ' and ' if not loop.last }}{% endfor %}
      group by {% for i in kept %}{{ I(b[i]) }}{{ ', ' if not loop.last }}{% endfor %}
    ) as {{ g }}
      on {% for i in kept %}{{ g }}.p{{ i }} = t.{{ I(b[i] ~ '__at_' ~ (pat[i] | int)) }}{{ ' and ' if not loop.last }}{% endfor %}
    {%- endif %}
    {%- endfor %}
  ) as x
  {%- if not loop.last %}
  union all
  {%- endif %}
  {%- endfor %}
{%- endmacro %}
