{#- The pattern table: distinct tuples of `columns` with their record count `n`. -#}
{% macro pattern_counts_sql(relation, columns) -%}
  {{ return(dbt_deid.own(adapter.dispatch('pattern_counts_sql', 'dbt_deid'))(relation, columns)) }}
{%- endmacro %}

{% macro default__pattern_counts_sql(relation, columns) -%}
  {%- set cols = [] -%}{%- for c in columns -%}{%- do cols.append(dbt_deid.ident(c)) -%}{%- endfor -%}
  select {{ cols | join(', ') }}, count(*) as n
  from {{ relation }}
  group by {{ cols | join(', ') }}
{%- endmacro %}
