{#- generalization (issue 4): none for fixed levels, else the OLA settings with their defaults;
    the relations are checked by the plan node's resolver (dbt_deid.ola.settings). -#}
{% macro ola_config() -%}
  {{ return(dbt_deid.own(adapter.dispatch('ola_config', 'dbt_deid'))()) }}
{%- endmacro %}

{% macro default__ola_config() -%}
  {%- set raw = (dbt_deid.release_settings() or {}).get('generalization') -%}
  {%- if raw is not mapping or dbt_deid._setting(raw, 'generalization', 'search') == 'fixed' -%}{{ return(none) }}{%- endif -%}
  {%- set out = {} -%}
  {%- for key in ['metric', 'max_levels', 'suppression', 'max_nodes', 'max_seconds', 'heuristic_seconds', 'heuristic_nodes'] -%}
    {%- do out.update({key: dbt_deid._setting(raw, 'generalization', key)}) -%}
  {%- endfor -%}
  {%- do out.update({'max_levels': out.max_levels or {}}) -%}
  {{ return(out) }}
{%- endmacro %}
