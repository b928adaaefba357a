{#- The exact numeric type interval rules compute in: 20 integer digits, 18 decimals. -#}
{% macro exact_number_type() -%}
  {{ return(dbt_deid.own(adapter.dispatch('exact_number_type', 'dbt_deid'))()) }}
{%- endmacro %}

{% macro default__exact_number_type() -%}
  {{ return('decimal(38, 18)') }}
{%- endmacro %}
