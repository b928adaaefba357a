{#- The release's `generalization` block (issue 4): none for fixed levels (every QI at its
    `level`), else the OLA search settings (El Emam et al. 2012 "Base Algorithm"; El Emam et al.
    2009 (CJHP) Table 2) with their defaults: {metric, max_levels, suppression, max_nodes,
    max_seconds, heuristic_seconds, heuristic_nodes}. Names and types are checked by
    release_config's parse-time check; the relations (max_levels naming QIs at or above their
    level, settings that need search: ola) by the resolver the plan node runs
    (dbt_deid.ola.settings.ola_settings). -#}
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
