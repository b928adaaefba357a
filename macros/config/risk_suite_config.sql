{#- The risk-suite settings (issue 6) with their defaults; the relations to the QIs are
    checked by the plan node's resolver (dbt_deid.settings_resolve.risk_suite_settings). -#}
{% macro risk_suite_config(release=none) -%}
  {{ return(dbt_deid.own(adapter.dispatch('risk_suite_config', 'dbt_deid'))(release)) }}
{%- endmacro %}

{% macro default__risk_suite_config(release) -%}
  {%- set raw = release if release is not none else (dbt_deid.release_settings() or {}) -%}
  {%- set cfg = dbt_deid.release_config(raw) -%}
  {%- set by = (raw.get('report') or {}).get('by') or [] -%}
  {%- set alpha, pop_size, population = raw.get('sampling_fraction'), raw.get('population_size'), raw.get('population') -%}
  {%- set sa, small = raw.get('small_areas'), none -%}
  {%- if sa is not none -%}
    {%- set geo_q = (cfg.qis | selectattr('name', 'equalto', sa.geography_column) | list + [{'level': 0, 'hierarchy': none}])[0] -%}
    {%- set small = {'geography_column': sa.geography_column, 'level': geo_q.level, 'areas': sa.areas,
                     'hierarchy': sa.get('hierarchy') or geo_q.hierarchy, 'coarser_level': sa.get('coarser_level') or geo_q.level + 1} -%}
    {%- for key in ['area_column', 'population_column', 'threshold', 'remedy', 'maxcombs', 'cutoff'] -%}
      {%- do small.update({key: dbt_deid._setting(sa, 'small_areas', key)}) -%}
    {%- endfor -%}
  {%- endif -%}
  {{ return({
      'release': cfg, 'by': [by] if by is string else (by | list if by is iterable else []), 'report_path': (raw.get('report') or {}).get('path'), 'sampling_fraction': alpha,
      'population_size': pop_size, 'population': population, 'population_count_column': raw.get('population_count_column'),
      'population_enabled': alpha is not none or pop_size is not none or population is not none,
      'preset': raw.get('preset'), 'small_areas': small,
  }) }}
{%- endmacro %}
