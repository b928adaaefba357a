{#- Date truncation to week, month, quarter or year, as an ISO date string. -#}
{% macro date_trunc_sql(unit, value_sql) -%}
  {{ return(dbt_deid.own(adapter.dispatch('date_trunc_sql', 'dbt_deid'))(unit, value_sql)) }}
{%- endmacro %}

{% macro default__date_trunc_sql(unit, value_sql) -%}
  {{ return('cast(cast(' ~ dbt.date_trunc(unit, 'cast(' ~ value_sql ~ ' as date)') ~ ' as date) as ' ~ dbt.type_string() ~ ')') }}
{%- endmacro %}
