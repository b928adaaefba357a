{#- var('deid_text_release'): the parse-time check, then the settings with their defaults
    (Scaiano, El Emam et al. 2016); the relations are checked by the plan node deid_text_plan. -#}
{% macro text_release_config(release=none) -%}
  {{ return(dbt_deid.own(adapter.dispatch('text_release_config', 'dbt_deid'))(release)) }}
{%- endmacro %}

{% macro default__text_release_config(release) -%}
  {%- set raw = release if release is not none else var('deid_text_release', none) -%}
  {%- do dbt_deid._check_var('text', raw) -%}
  {%- set s = {} -%}
  {%- for key in dbt_deid.settings_schema().sections.text -%}
    {%- do s.update({key: dbt_deid._setting(raw, 'text', key)}) -%}
  {%- endfor -%}
  {{ return(s) }}
{%- endmacro %}
