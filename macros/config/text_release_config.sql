{#- The text release (Scaiano, El Emam et al. 2016), var('deid_text_release'): the parse-time
    check (dbt_deid._check_var: names, types, docs/settings-reference.md), then the settings
    with their defaults. The relations between settings (types direct or quasi, the Pr(attempt)
    triangle) are checked once, by the resolver the plan node deid_text_plan runs
    (dbt_deid.settings_resolve.text_settings), which every model reading a text input depends
    on. -#}
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
