{#- Equivalence classes and prosecutor risk (El Emam et al. 2011 "Equivalence Classes"; El Emam et al. 2009 (CJHP): risk of a
    record is 1/f_j, the release's maximum risk 1/min f_j). NULL (suppressed) is its own
    category in GROUP BY / PARTITION BY, so the fully suppressed class is a class too. -#}

{#- Per-record risk: for each record, its smallest class size over `combinations` and the
    prosecutor risk 1/f_j of that class. `patterns`: a pattern table of `relation` (columns
    and record count n, e.g. deid_suppressed_patterns) the class sizes may be read from instead
    of grouping the records again. -#}
{% macro record_risk_sql(relation, record_id, combinations, patterns=none) -%}
  {{ return(dbt_deid.own(adapter.dispatch('record_risk_sql', 'dbt_deid'))(relation, record_id, combinations, patterns)) }}
{%- endmacro %}

{% macro default__record_risk_sql(relation, record_id, combinations, patterns=none) -%}
  {%- set sizes = [] -%}
  {%- for b in combinations -%}
    {%- set cols = [] -%}{%- for c in b -%}{%- do cols.append(dbt_deid.ident(c)) -%}{%- endfor -%}
    {%- do sizes.append('count(*) over (partition by ' ~ cols | join(', ') ~ ')') -%}
  {%- endfor -%}
  select {{ dbt_deid.ident(record_id) }},
    {% if sizes | length > 1 %}least({{ sizes | join(', ') }}){% else %}{{ sizes[0] }}{% endif %} as smallest_class_size,
    1.0 / {% if sizes | length > 1 %}least({{ sizes | join(', ') }}){% else %}{{ sizes[0] }}{% endif %} as prosecutor_risk
  from {{ relation }}
{%- endmacro %}

{#- DuckDB: the same figures from smallest_class_patterns_sql joined back to the records with
    null-safe equality (DuckDB hash-joins IS NOT DISTINCT FROM; engines that cannot keep the
    window form above). The class sizes come from `patterns` when given (the records are then
    read once). -#}
{% macro duckdb__record_risk_sql(relation, record_id, combinations, patterns=none) -%}
  {%- set all_cols = [] -%}
  {%- for b in combinations -%}{%- for c in b -%}{%- if dbt_deid.ident(c) not in all_cols -%}{%- do all_cols.append(dbt_deid.ident(c)) -%}{%- endif -%}{%- endfor -%}{%- endfor -%}
  select r.{{ dbt_deid.ident(record_id) }}, s.smallest_class_size, 1.0 / s.smallest_class_size as prosecutor_risk
  from {{ relation }} as r
  inner join ({{ dbt_deid.smallest_class_patterns_sql(patterns if patterns is not none else relation, combinations, 'n' if patterns is not none else none) }}) as s
    on {% for c in all_cols %}r.{{ c }} is not distinct from s.{{ c }}{% if not loop.last %} and {% endif %}{% endfor %}
{%- endmacro %}
