{#- var('deid_claims_release'): the parse-time check, then the settings with their defaults (El
    Emam et al. 2012); the relations are checked by the plan node deid_claims_plan. -#}
{% macro claims_release_config(release=none) -%}
  {{ return(dbt_deid.own(adapter.dispatch('claims_release_config', 'dbt_deid'))(release)) }}
{%- endmacro %}

{% macro default__claims_release_config(release) -%}
  {%- set raw = release if release is not none else var('deid_claims_release', none) -%}
  {%- do dbt_deid._check_var('claims', raw) -%}
  {%- set s = {} -%}
  {%- for key in dbt_deid.settings_schema().sections.claims -%}
    {%- do s.update({key: dbt_deid._setting(raw, 'claims', key)}) -%}
  {%- endfor -%}
  {%- set dims = [] -%}
  {%- for q in s.demographic_qis + s.claim_qis if s.dimensions is none and q in s.hierarchies -%}
    {%- do dims.append({'name': q, 'columns': [q]}) -%}
  {%- endfor -%}
  {%- for d, cols in (s.dimensions or {}).items() -%}{%- do dims.append({'name': d, 'columns': cols | list}) -%}{%- endfor -%}
  {%- for key in ['pseudonymize', 'top_code', 'release_columns'] -%}
    {%- set v, dflt = s[key] or {}, [s.member_id] if key == 'pseudonymize' else [] -%}
    {%- do s.update({key: {'patients': (v.patients or dflt) | list, 'claims': (v.claims or dflt) | list}}) -%}
  {%- endfor -%}
  {%- do s.update({'dimensions': dims, 'demographic_qis': s.demographic_qis | list, 'claim_qis': s.claim_qis | list,
      'max_suppression': s.max_suppression if s.max_suppression is not none else [1.0, 0.0004 / s.tau] | min,
      'attack_tau': s.attack_tau if s.attack_tau is not none else s.tau}) -%}
  {{ return(s) }}
{%- endmacro %}
