{#- A trimmed string id and an integer offset (NULL when it does not parse). -#}
{% macro _text_id(col) -%}
  {{ return("trim(cast(" ~ col ~ " as " ~ dbt.type_string() ~ "))") }}
{%- endmacro %}
