{#- Class sizes f_j of one combination: one row per class (size column `f`), no values.
    `count_column`: the relation is a pattern table, each row standing for that many records.
    `relation` may be a parenthesised query (current_patterns, for a refresh's pairs table):
    aliased, as PostgreSQL before 16 requires of a subquery in FROM (review 9, G3). -#}
{% macro class_sizes_sql(relation, combination, count_column=none) -%}
  {{ return(dbt_deid.own(adapter.dispatch('class_sizes_sql', 'dbt_deid'))(relation, combination, count_column)) }}
{%- endmacro %}

{% macro default__class_sizes_sql(relation, combination, count_column=none) -%}
  {%- set cols = [] -%}{%- for c in combination -%}{%- do cols.append(dbt_deid.ident(c)) -%}{%- endfor -%}
  select {% if count_column %}sum({{ dbt_deid.ident(count_column) }}){% else %}count(*){% endif %} as f from {{ relation }} as deid_classes_in group by {{ cols | join(', ') }}
{%- endmacro %}
