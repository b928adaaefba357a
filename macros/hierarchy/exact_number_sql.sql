{#- A value as an exact decimal (issue 13: a 32-bit float turned 16777217 into 16777216 and
    2.9999999 into 3). Read through its text, so a binary float becomes the decimal it prints
    as (its shortest round-trip form) and integers, decimals and numeric strings are exact; the
    input check (assert_rule_values) rejects what does not convert. -#}
{% macro exact_number_sql(value_sql) -%}
  {{ return(dbt_deid.own(adapter.dispatch('exact_number_sql', 'dbt_deid'))(value_sql)) }}
{%- endmacro %}

{% macro default__exact_number_sql(value_sql) -%}
  {{ return('cast(cast(' ~ value_sql ~ ' as ' ~ dbt.type_string() ~ ') as ' ~ dbt_deid.exact_number_type() ~ ')') }}
{%- endmacro %}
