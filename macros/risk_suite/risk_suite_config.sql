{#- Settings of the risk-measurement suite (issue 6), read from the release var next to the
    release itself (var('deid_release')): `report`, `sampling_fraction`, `population`,
    `population_size`, `small_areas`, `preset`. Returns a normalized dict; a bad value raises one
    compiler error naming the setting (same style as release_config). -#}
{% macro risk_suite_config(release=none) -%}
  {{ return(dbt_deid.own(adapter.dispatch('risk_suite_config', 'dbt_deid'))(release)) }}
{%- endmacro %}

{#- Names and types come from the one definition (release_config's dbt_deid._check_var); what
    is left here relates the sections to the release's quasi-identifiers. -#}
{% macro default__risk_suite_config(release) -%}
  {%- set raw = release if release is not none else (dbt_deid.release_settings() or {}) -%}
  {%- set cfg = dbt_deid.release_config(raw) -%}
  {%- set report = raw.get('report') or {} -%}
  {%- set by = report.get('by') or [] -%}
  {%- if by is string -%}{%- set by = [by] -%}{%- endif -%}
  {%- if not dbt_deid._is_list(by) -%}{{ dbt_deid._config_error('report.by', 'must be a list of quasi-identifier names') }}{%- endif -%}
  {%- for b in by if b not in cfg.qi_names -%}
    {{ dbt_deid._config_error('report.by', 'names ' ~ b ~ ', not a quasi-identifier; declared: ' ~ cfg.qi_names | join(', ')) }}
  {%- endfor -%}
  {%- set alpha, pop_size, population = raw.get('sampling_fraction'), raw.get('population_size'), raw.get('population') -%}
  {%- set sa = raw.get('small_areas') -%}
  {%- set small = none -%}
  {%- if sa is not none -%}
    {%- set geo = sa.geography_column -%}
    {%- if geo not in cfg.qi_names -%}
      {{ dbt_deid._config_error('small_areas.geography_column', 'must name a quasi-identifier, got ' ~ dbt_deid._describe(geo)) }}
    {%- endif -%}
    {%- set geo_q = (cfg.qis | selectattr('name', 'equalto', geo) | list)[0] -%}
    {%- set small = {'geography_column': geo, 'level': geo_q.level, 'areas': sa.areas} -%}
    {%- for key in ['area_column', 'population_column', 'threshold', 'remedy', 'maxcombs', 'cutoff'] -%}
      {%- do small.update({key: dbt_deid._setting(sa, 'small_areas', key)}) -%}
    {%- endfor -%}
    {%- set hierarchy = sa.get('hierarchy') or geo_q.hierarchy -%}
    {%- if hierarchy is none or hierarchy == 'deid_small_area_hierarchy' -%}
      {{ dbt_deid._config_error('small_areas.hierarchy', 'name the original lookup hierarchy of ' ~ geo ~ ' (first column the area code, next columns the coarser levels)') }}
    {%- endif -%}
    {%- set coarser = sa.get('coarser_level') or geo_q.level + 1 -%}
    {%- if coarser <= geo_q.level -%}
      {{ dbt_deid._config_error('small_areas.coarser_level', 'must be an integer above the released level ' ~ geo_q.level ~ ', got ' ~ coarser) }}
    {%- endif -%}
    {%- if small.remedy != 'none' and geo_q.hierarchy != 'deid_small_area_hierarchy' -%}
      {{ dbt_deid._config_error('small_areas.remedy', 'is ' ~ small.remedy ~ ': set quasi_identifiers.' ~ geo ~ '.hierarchy to deid_small_area_hierarchy (the remedied copy of ' ~ hierarchy ~ ')') }}
    {%- endif -%}
    {%- if small.remedy != 'none' and geo_q.level < 1 -%}
      {{ dbt_deid._config_error('small_areas.remedy', 'needs ' ~ geo ~ ' released at level >= 1 of its hierarchy (level 0 is the key)') }}
    {%- endif -%}
    {%- do small.update({'hierarchy': hierarchy, 'coarser_level': coarser}) -%}
  {%- endif -%}
  {{ return({
      'release': cfg, 'by': by | list, 'report_path': report.get('path'), 'sampling_fraction': alpha,
      'population_size': pop_size, 'population': population, 'population_count_column': raw.get('population_count_column'),
      'population_enabled': alpha is not none or pop_size is not none or population is not none,
      'preset': raw.get('preset'), 'small_areas': small,
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
