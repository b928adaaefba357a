{% macro _text_first_row(sql) -%}
  {%- set rows = run_query(sql).rows -%}
  {{ return(rows[0] if rows | length > 0 else none) }}
{%- endmacro %}
