{#- For the test suite: prints, as JSON, the name the Jinja validator suggests for each
    misspelt setting (dbt_deid._closest_name), to compare with the Python twin. -#}
{% macro print_closest_names(names, section='release') %}
  {%- set known = dbt_deid.settings_schema().sections[section].keys() | list -%}
  {%- set out = {} -%}
  {%- for n in names -%}{%- do out.update({n: dbt_deid._closest_name(n, known)}) -%}{%- endfor -%}
  {{ print('CLOSEST=' ~ tojson(out)) }}
{% endmacro %}
