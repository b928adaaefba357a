{#- An exact decimal expression known to lie on the grid of `scale` decimals, as text without
    trailing zeros (2.5, 40, -3). -#}
{% macro decimal_label_sql(expr_sql, scale) -%}
  {{ return(dbt_deid.own(adapter.dispatch('decimal_label_sql', 'dbt_deid'))(expr_sql, scale)) }}
{%- endmacro %}

{% macro default__decimal_label_sql(expr_sql, scale) -%}
  {%- set txt = 'cast(cast(' ~ expr_sql ~ ' as decimal(38, ' ~ scale ~ ')) as ' ~ dbt.type_string() ~ ')' -%}
  {%- if scale == 0 -%}{{ return(txt) }}{%- endif -%}
  {{ return("trim(trailing '.' from trim(trailing '0' from " ~ txt ~ "))") }}
{%- endmacro %}
