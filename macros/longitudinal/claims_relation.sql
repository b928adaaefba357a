{#- True when the project declares a claims release (var deid_claims_release). -#}
{% macro claims_release_enabled() -%}
  {{ return(dbt_deid.own(adapter.dispatch('claims_release_enabled', 'dbt_deid'))()) }}
{%- endmacro %}

{% macro default__claims_release_enabled() -%}
  {{ return(var('deid_claims_release', none) is not none) }}
{%- endmacro %}

{#- The relation a claims setting names (dbt_deid.setting_relation); the calling model depends on
    deid_claims_plan, the node that resolves the settings once. -#}
{% macro claims_relation(name) -%}
  {%- do ref('dbt_deid', 'deid_claims_plan') -%}
  {{ return(dbt_deid.setting_relation(name)) }}
{%- endmacro %}

{#- The hierarchical QIs of one table ('patients' or 'claims'), in the order of the settings. -#}
{% macro claims_hierarchical(cfg, table) -%}
  {%- set qis = cfg.demographic_qis if table == 'patients' else cfg.claim_qis -%}
  {{ return(qis | select('in', cfg.hierarchies.keys() | list) | list) }}
{%- endmacro %}
