{% macro _text_input_label(cfg, table) -%}
  {%- set name = cfg[table] -%}
  {{ return("table '" ~ table ~ "' (" ~ ((name.source_name ~ '.' ~ name.table) if name is mapping else name) ~ ")") }}
{%- endmacro %}
