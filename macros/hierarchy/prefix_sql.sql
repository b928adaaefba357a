{#- A string prefix of `length` characters (postal code FSA, code prefixes); 0 gives '*'. -#}
{% macro prefix_sql(length, value_sql) -%}
  {{ return(dbt_deid.own(adapter.dispatch('prefix_sql', 'dbt_deid'))(length, value_sql)) }}
{%- endmacro %}

{% macro default__prefix_sql(length, value_sql) -%}
  {%- if length == 0 -%}
    {{ return("case when " ~ value_sql ~ " is null then null else '*' end") }}
  {%- endif -%}
  {{ return('substr(cast(' ~ value_sql ~ ' as ' ~ dbt.type_string() ~ '), 1, ' ~ length ~ ')') }}
{%- endmacro %}
