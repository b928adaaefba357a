{#- ref(name) or source(source_name, table) of a setting naming a model/seed or a source. -#}
{% macro setting_relation(name) -%}
  {%- if name is mapping -%}{{ return(source(name.source_name, name.table)) }}{%- endif -%}
  {{ return(ref(name)) }}
{%- endmacro %}
