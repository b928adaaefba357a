{#- The whole number `numerator / divisor` for exact decimals whose quotient is known to be whole
    (an interval's index), as text. Engines that divide decimals in double precision (DuckDB)
    round the quotient: q0 = round(numerator / divisor) is within a few units of it, and the
    residual (numerator - q0 x divisor) is exact and small, so q0 + round(residual / divisor)
    is the exact quotient for any size. -#}
{% macro whole_quotient_sql(numerator_sql, divisor_sql) -%}
  {{ return(dbt_deid.own(adapter.dispatch('whole_quotient_sql', 'dbt_deid'))(numerator_sql, divisor_sql)) }}
{%- endmacro %}

{% macro default__whole_quotient_sql(numerator_sql, divisor_sql) -%}
  {%- set q0 = 'cast(round((' ~ numerator_sql ~ ') / ' ~ divisor_sql ~ ') as decimal(38, 0))' -%}
  {%- set fix = 'cast(round(((' ~ numerator_sql ~ ') - ' ~ q0 ~ ' * ' ~ divisor_sql ~ ') / ' ~ divisor_sql ~ ') as decimal(38, 0))' -%}
  {{ return('cast(' ~ q0 ~ ' + ' ~ fix ~ ' as ' ~ dbt.type_string() ~ ')') }}
{%- endmacro %}
