{#- True when the release declares `report.algorithm_comparison: true`: the model
    deid_algorithm_comparison is built only then, and deid_report_inputs reads it (its part
    algorithm_comparison). -#}
{% macro algorithm_comparison_enabled() -%}
  {{ return(dbt_deid.own(adapter.dispatch('algorithm_comparison_enabled', 'dbt_deid'))()) }}
{%- endmacro %}

{% macro default__algorithm_comparison_enabled() -%}
  {{ return(dbt_deid.release_enabled() and ((dbt_deid.release_settings() or {}).get('report') or {}).get('algorithm_comparison') == true) }}
{%- endmacro %}
