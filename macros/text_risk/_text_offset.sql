{% macro _text_offset(col) -%}
  {{ return(dbt.safe_cast(col, dbt.type_bigint())) }}
{%- endmacro %}
