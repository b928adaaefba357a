{#- Distinct tuples of every combination's columns with their record count `n` and their
    smallest class size over the combinations (`smallest_class_size`, window sums over the
    tuples, not over records; one window per combination: risk_cdf_sql passes each distinct
    set of columns once). Shared by the risk CDF and DuckDB's record risk. `count_column`:
    the relation is a pattern table, each row standing for that many records. `relation` may
    be a parenthesised query (current_patterns, for a refresh's pairs table): aliased, as
    PostgreSQL before 16 requires of a subquery in FROM (review 9, G3). -#}
{% macro smallest_class_patterns_sql(relation, combinations, count_column=none) -%}
  {{ return(dbt_deid.own(adapter.dispatch('smallest_class_patterns_sql', 'dbt_deid'))(relation, combinations, count_column)) }}
{%- endmacro %}

{% macro default__smallest_class_patterns_sql(relation, combinations, count_column=none) -%}
  {%- set all_cols = [] -%}
  {%- for b in combinations -%}{%- for c in b -%}{%- if dbt_deid.ident(c) not in all_cols -%}{%- do all_cols.append(dbt_deid.ident(c)) -%}{%- endif -%}{%- endfor -%}{%- endfor -%}
  {%- set sizes = [] -%}
  {%- for b in combinations -%}
    {%- set cols = [] -%}{%- for c in b -%}{%- do cols.append(dbt_deid.ident(c)) -%}{%- endfor -%}
    {%- do sizes.append('sum(n) over (partition by ' ~ cols | join(', ') ~ ')') -%}
  {%- endfor -%}
  select {{ all_cols | join(', ') }}, n,
    cast({% if sizes | length > 1 %}least({{ sizes | join(', ') }}){% else %}{{ sizes[0] }}{% endif %} as {{ dbt.type_bigint() }}) as smallest_class_size
  from (
    select {{ all_cols | join(', ') }}, {% if count_column %}sum({{ dbt_deid.ident(count_column) }}){% else %}count(*){% endif %} as n from {{ relation }} as deid_patterns_in group by {{ all_cols | join(', ') }}
  ) as patterns
{%- endmacro %}

{#- DuckDB: the same rows with each combination's class sizes from a GROUP BY of the tuples
    joined back to them (NULL-safe: a suppressed cell is NULL and is one value of its column, as
    in a window's partition) instead of one window per combination. DuckDB's window operator
    sorts the tuples once per partitioning; its hash aggregate and hash join do not (session
    12, docs/performance.md: the diagnostics' original and generalized stages at 2.4M records).
    tests/unit/test_smallest_class_patterns.py checks it against default__ on DuckDB. -#}
{% macro duckdb__smallest_class_patterns_sql(relation, combinations, count_column=none) -%}
  {%- set all_cols = [] -%}
  {%- for b in combinations -%}{%- for c in b -%}{%- if dbt_deid.ident(c) not in all_cols -%}{%- do all_cols.append(dbt_deid.ident(c)) -%}{%- endif -%}{%- endfor -%}{%- endfor -%}
  with deid_tuples__ as (
    select {{ all_cols | join(', ') }}, {% if count_column %}sum({{ dbt_deid.ident(count_column) }}){% else %}count(*){% endif %} as n from {{ relation }} as deid_patterns_in group by {{ all_cols | join(', ') }}
  )
  select {% for c in all_cols %}p.{{ c }} as {{ c }}, {% endfor %}p.n as n,
    cast({% if combinations | length > 1 %}least({% for b in combinations %}s{{ loop.index }}.f{% if not loop.last %}, {% endif %}{% endfor %}){% else %}s1.f{% endif %} as {{ dbt.type_bigint() }}) as smallest_class_size
  from deid_tuples__ as p
  {%- for b in combinations %}
  {%- set s = 's' ~ loop.index -%}
  {%- set cols = [] -%}{%- for c in b -%}{%- do cols.append(dbt_deid.ident(c)) -%}{%- endfor %}
  inner join (select {{ cols | join(', ') }}, sum(n) as f from deid_tuples__ group by {{ cols | join(', ') }}) as {{ s }}
    on {% for c in cols %}{{ s }}.{{ c }} is not distinct from p.{{ c }}{% if not loop.last %} and {% endif %}{% endfor %}
  {%- endfor %}
{%- endmacro %}
