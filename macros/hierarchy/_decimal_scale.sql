{#- Digits after the decimal point of a number from the settings (0 for whole numbers). -#}
{% macro _decimal_scale(x) -%}
  {%- set t = dbt_deid._decimal_text(x) -%}
  {{ return((t.split('.')[1] | length) if '.' in t else 0) }}
{%- endmacro %}
