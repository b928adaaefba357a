{#- True when the project declares a claims release (var deid_claims_release). -#}
{% macro claims_release_enabled() -%}
  {{ return(dbt_deid.own(adapter.dispatch('claims_release_enabled', 'dbt_deid'))()) }}
{%- endmacro %}

{% macro default__claims_release_enabled() -%}
  {{ return(var('deid_claims_release', none) is not none) }}
{%- endmacro %}

{#- ref(name) or source(source_name, table) of a relation setting. -#}
{% macro claims_relation(name) -%}
  {%- do ref('deid_claims_plan') -%}
  {%- if name is mapping -%}
    {{ return(source(name.source_name, name.table)) }}
  {%- else -%}
    {{ return(ref(name)) }}
  {%- endif -%}
{%- endmacro %}

{#- The hierarchical QIs of one table ('patients' or 'claims'), in the order of the settings. -#}
{% macro claims_hierarchical(cfg, table) -%}
  {%- set qis = cfg.demographic_qis if table == 'patients' else cfg.claim_qis -%}
  {{ return(qis | select('in', cfg.hierarchies.keys() | list) | list) }}
{%- endmacro %}
