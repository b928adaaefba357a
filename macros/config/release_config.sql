{#- var('deid_release') (or `release`): the parse-time check, then the settings the SQL reads; the
    value rules are checked once by the plan node deid_release_plan (docs/settings-once.md). -#}
{% macro release_config(release=none) -%}
  {{ return(dbt_deid.own(adapter.dispatch('release_config', 'dbt_deid'))(release)) }}
{%- endmacro %}

{% macro _config_error(setting, message) -%}
  {{ exceptions.raise_compiler_error("dbt_deid release setting '" ~ setting ~ "': " ~ message) }}
{%- endmacro %}

{% macro _is_list(value) -%}
  {{ return(value is iterable and value is not string and value is not mapping) }}
{%- endmacro %}

{#- A setting's value, or its default (dbt_deid.settings_schema) when absent or null. -#}
{% macro _setting(raw, section, key) -%}
  {%- set v = raw.get(key) -%}
  {{ return(v if v is not none else dbt_deid.settings_schema().sections[section][key].get('default')) }}
{%- endmacro %}

{% macro default__release_config(release) -%}
  {%- set raw = release if release is not none else dbt_deid.release_settings() -%}
  {%- if raw is not mapping and dbt_deid.current_release() is not none -%}
    {%- do dbt_deid._setting_error('release', 'deid_releases.' ~ dbt_deid.current_release(), 'declare the release as a mapping in var deid_releases (key ' ~ dbt_deid.current_release() ~ ')') -%}
  {%- endif -%}
  {%- do dbt_deid._check_var('release', raw) -%}
  {%- set caps, qis = raw.get('column_suppression_cap'), [] -%}
  {%- for name, spec0 in raw.quasi_identifiers.items() -%}
    {%- set spec = spec0 or {} -%}
    {%- for lv in (spec.get('rule') or {}).get('levels') or [] -%}
      {%- set w = 'quasi_identifiers.' ~ name ~ '.rule.levels[' ~ loop.index ~ ']' -%}
      {%- if lv is not mapping -%}{%- do dbt_deid._setting_error('release', w, 'must be a mapping, got ' ~ dbt_deid._describe(lv)) -%}{%- endif -%}
      {%- do dbt_deid._check_section('release', w, lv, dbt_deid.settings_schema().rule_level_section[spec.rule.type]) -%}
    {%- endfor -%}
    {%- set cap = caps.get(name) if caps is mapping else none -%}
    {%- set cap = cap if cap is not none else (spec.get('suppression_cap') if spec.get('suppression_cap') is not none or caps is mapping else caps) -%}
    {%- do qis.append({'name': name, 'level': dbt_deid._setting(spec, 'quasi_identifier', 'level'), 'weight': dbt_deid._setting(spec, 'quasi_identifier', 'weight'),
                       'hierarchy': spec.get('hierarchy'), 'rule': spec.get('rule'), 'cap': cap, 'column': spec.get('column') or name}) -%}
  {%- endfor -%}
  {%- set tau, k = dbt_deid._threshold(raw) -%}
  {%- set sample = raw.get('sample') -%}
  {%- if sample is not none -%}
    {%- set sample = {'fraction': sample.fraction, 'slot': dbt_deid._setting(sample, 'sample', 'slot'), 'seed': dbt_deid._setting(sample, 'sample', 'seed'), 'order': dbt_deid._setting(sample, 'sample', 'order')} -%}
  {%- endif -%}
  {%- set ad, out = raw.get('attribute_disclosure') or {}, {} -%}
  {%- for role in ['direct_identifiers', 'pass_through', 'excluded', 'sensitive'] -%}{%- do out.update({role: (raw.get(role) or []) | list}) -%}{%- endfor -%}
  {%- set hierarchies = {} -%}
  {%- for c, h in (ad.get('hierarchies') or {}).items() -%}{%- do hierarchies.update({c | lower: h}) -%}{%- endfor -%}
  {%- do out.update({
      'name': dbt_deid._setting(raw, 'release', 'name'), 'sample': sample, 'source': raw.source, 'record_id': raw.record_id,
      'attribute_disclosure': {'distinct_l': ad.get('distinct_l'), 'entropy_l': ad.get('entropy_l'), 'recursive_c': ad.get('recursive_c'),
          'recursive_l': ad.get('recursive_l'), 't': ad.get('t'), 'ordered': (ad.get('ordered') or []) | map('lower') | list, 'hierarchies': hierarchies,
          'remedy': dbt_deid._setting(ad, 'attribute_disclosure', 'remedy')},
      'qis': qis, 'qi_names': qis | map(attribute='name') | list,
      'verified_combinations': dbt_deid.release_plan('verified'), 'protected_combinations': dbt_deid.release_plan('protected'),
      'released_qis': dbt_deid.release_plan('released'), 'k': k, 'tau': tau, 'preset': raw.get('preset'),
      'max_suppression': raw.max_suppression, 'algorithm': dbt_deid._setting(raw, 'release', 'algorithm'),
      'missing_label': dbt_deid._setting(raw, 'release', 'missing_label'),
      'max_changed_share': dbt_deid._setting(raw, 'release', 'max_changed_share')}) -%}
  {{ return(out) }}
{%- endmacro %}

{#- (tau, k): ceil(alpha x F_j) (El Emam et al. 2012 eq. 3) or ceil(1/tau) (El Emam et al. 2011). -#}
{% macro _threshold(raw) -%}
  {%- set f, alpha, schema = raw.get('population_threshold'), raw.get('sampling_fraction'), dbt_deid.settings_schema() -%}
  {%- if f is not none and alpha is not none -%}
    {%- set k = dbt_deid.truncated_poisson_k(f, alpha) if dbt_deid._setting(raw, 'release', 'population_estimator') == 'truncated_poisson' else [((alpha * f) | round(9) | round(0, 'ceil')) | int, 1] | max -%}
    {{ return([1.0 / k, k]) }}
  {%- endif -%}
  {%- set preset = raw.get('preset') -%}
  {%- set tau = raw.get('tau') if raw.get('tau') is not none else (schema.preset_tau[schema.preset_aliases.get(preset, preset)] if preset is not none and raw.get('k') is none else none) -%}
  {%- if tau is none -%}{{ return([1.0 / raw.k if raw.get('k') else none, raw.get('k')]) }}{%- endif -%}
  {{ return([tau, ((1.0 / tau) | round(9) | round(0, 'ceil')) | int]) }}
{%- endmacro %}
