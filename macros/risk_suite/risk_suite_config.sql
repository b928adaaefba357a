{#- Settings of the risk-measurement suite (issue 6), read from the release var next to the
    release itself (var('deid_release')): `report`, `sampling_fraction`, `population`,
    `population_size`, `small_areas`, `preset`. Returns a normalized dict; a bad value raises one
    compiler error naming the setting (same style as release_config). -#}
{% macro risk_suite_config(release=none) -%}
  {{ return(dbt_deid.own(adapter.dispatch('risk_suite_config', 'dbt_deid'))(release)) }}
{%- endmacro %}

{% macro default__risk_suite_config(release) -%}
  {%- set raw = release if release is not none else (dbt_deid.release_settings() or {}) -%}
  {%- set cfg = dbt_deid.release_config(raw) -%}
  {%- set report = raw.get('report', {}) or {} -%}
  {%- if report is not mapping -%}{{ dbt_deid._config_error('report', 'must be a mapping (by, path)') }}{%- endif -%}
  {%- set by = report.get('by', []) or [] -%}
  {%- if by is string -%}{%- set by = [by] -%}{%- endif -%}
  {%- if not dbt_deid._is_list(by) -%}{{ dbt_deid._config_error('report.by', 'must be a list of quasi-identifier names') }}{%- endif -%}
  {%- for b in by -%}
    {%- if b not in cfg.qi_names -%}
      {{ dbt_deid._config_error('report.by', 'names ' ~ b ~ ', not a quasi-identifier; declared: ' ~ cfg.qi_names | join(', ')) }}
    {%- endif -%}
  {%- endfor -%}
  {%- set path = report.get('path') -%}
  {%- if path is not none and (path is not string or path | length == 0) -%}
    {{ dbt_deid._config_error('report.path', 'must be a file path') }}
  {%- endif -%}
  {%- set alpha = raw.get('sampling_fraction') -%}
  {%- if alpha is not none and (alpha is not number or alpha is boolean or alpha <= 0 or alpha > 1) -%}
    {{ dbt_deid._config_error('sampling_fraction', 'must be a number in (0, 1], got ' ~ alpha) }}
  {%- endif -%}
  {%- set pop_size = raw.get('population_size') -%}
  {%- if pop_size is not none and (pop_size is not number or pop_size is boolean or pop_size <= 0) -%}
    {{ dbt_deid._config_error('population_size', 'must be a positive number, got ' ~ pop_size) }}
  {%- endif -%}
  {%- set population = raw.get('population') -%}
  {%- if population is not none and (population is not string or population | length == 0) -%}
    {{ dbt_deid._config_error('population', 'must name a model or seed (one row per person, or per pattern with a count column)') }}
  {%- endif -%}
  {%- set population_count = raw.get('population_count_column') -%}
  {%- set preset = raw.get('preset') -%}
  {%- if preset is not none and preset not in ['public', 'agreement', 'audited', 'trusted', 'strong_controls', 'research'] -%}
    {{ dbt_deid._config_error('preset', 'must be public, agreement or audited, got ' ~ preset) }}
  {%- endif -%}
  {%- set sa = raw.get('small_areas') -%}
  {%- set small = none -%}
  {%- if sa is not none -%}
    {%- if sa is not mapping -%}{{ dbt_deid._config_error('small_areas', 'must be a mapping') }}{%- endif -%}
    {%- set geo = sa.get('geography_column') -%}
    {%- if geo not in cfg.qi_names -%}
      {{ dbt_deid._config_error('small_areas.geography_column', 'must name a quasi-identifier, got ' ~ geo) }}
    {%- endif -%}
    {%- set geo_q = (cfg.qis | selectattr('name', 'equalto', geo) | list)[0] -%}
    {%- set areas = sa.get('areas') -%}
    {%- if areas is not string or areas | length == 0 -%}
      {{ dbt_deid._config_error('small_areas.areas', 'must name a model or seed with one row per area and its population') }}
    {%- endif -%}
    {%- set threshold = sa.get('threshold', 0.05) -%}
    {%- if threshold not in [0.05, 0.2] -%}
      {{ dbt_deid._config_error('small_areas.threshold', 'must be 0.05 or 0.2 (El Emam et al. 2010 equations 3-4), got ' ~ threshold) }}
    {%- endif -%}
    {%- set remedy = sa.get('remedy', 'none') or 'none' -%}
    {%- if remedy not in ['none', 'suppress', 'aggregate'] -%}
      {{ dbt_deid._config_error('small_areas.remedy', 'must be none, suppress or aggregate, got ' ~ remedy) }}
    {%- endif -%}
    {%- set hierarchy = sa.get('hierarchy', geo_q.hierarchy) -%}
    {%- if hierarchy is none or hierarchy == 'deid_small_area_hierarchy' -%}
      {{ dbt_deid._config_error('small_areas.hierarchy', 'name the original lookup hierarchy of ' ~ geo ~ ' (first column the area code, next columns the coarser levels)') }}
    {%- endif -%}
    {%- set coarser = sa.get('coarser_level', geo_q.level + 1) -%}
    {%- if coarser is not integer or coarser is boolean or coarser <= geo_q.level -%}
      {{ dbt_deid._config_error('small_areas.coarser_level', 'must be an integer above the released level ' ~ geo_q.level ~ ', got ' ~ coarser) }}
    {%- endif -%}
    {%- if remedy != 'none' and geo_q.hierarchy != 'deid_small_area_hierarchy' -%}
      {{ dbt_deid._config_error('small_areas.remedy', 'is ' ~ remedy ~ ': set quasi_identifiers.' ~ geo ~ '.hierarchy to deid_small_area_hierarchy (the remedied copy of ' ~ hierarchy ~ ')') }}
    {%- endif -%}
    {%- if remedy != 'none' and geo_q.level < 1 -%}
      {{ dbt_deid._config_error('small_areas.remedy', 'needs ' ~ geo ~ ' released at level >= 1 of its hierarchy (level 0 is the key)') }}
    {%- endif -%}
    {%- set maxcombs = sa.get('maxcombs') -%}
    {%- if maxcombs is not none and (maxcombs is not integer or maxcombs < 1) -%}
      {{ dbt_deid._config_error('small_areas.maxcombs', 'must be a positive integer, got ' ~ maxcombs) }}
    {%- endif -%}
    {%- set small = {
        'geography_column': geo, 'level': geo_q.level, 'areas': areas,
        'area_column': sa.get('area_column', 'area'), 'population_column': sa.get('population_column', 'population'),
        'threshold': threshold, 'remedy': remedy, 'hierarchy': hierarchy, 'coarser_level': coarser,
        'maxcombs': maxcombs, 'cutoff': sa.get('cutoff', 0.5),
    } -%}
  {%- endif -%}
  {{ return({
      'release': cfg, 'by': by | list, 'report_path': path, 'sampling_fraction': alpha,
      'population_size': pop_size, 'population': population, 'population_count_column': population_count,
      'population_enabled': alpha is not none or pop_size is not none or population is not none,
      'preset': preset, 'small_areas': small,
  }) }}
{%- endmacro %}

{#- True when the release declares small_areas (the small-area models build only then). -#}
{% macro small_areas_enabled() -%}
  {{ return(dbt_deid.own(adapter.dispatch('small_areas_enabled', 'dbt_deid'))()) }}
{%- endmacro %}

{% macro default__small_areas_enabled() -%}
  {{ return(dbt_deid.release_enabled() and (dbt_deid.release_settings() or {}).get('small_areas') is not none) }}
{%- endmacro %}

{#- True when the release gives a sampling fraction, a population size or a population relation
    (journalist/marketer risk and the uniqueness estimators build only then). -#}
{% macro population_risk_enabled() -%}
  {{ return(dbt_deid.own(adapter.dispatch('population_risk_enabled', 'dbt_deid'))()) }}
{%- endmacro %}

{% macro default__population_risk_enabled() -%}
  {%- set raw = dbt_deid.release_settings() or {} -%}
  {{ return(dbt_deid.release_enabled() and (raw.get('sampling_fraction') is not none or raw.get('population_size') is not none or raw.get('population') is not none)) }}
{%- endmacro %}
