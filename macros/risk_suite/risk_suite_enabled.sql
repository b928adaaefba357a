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
