{#- The code digest of this package (review 12 final, M1): the md5 of its code (macros, models,
    Python models, the core; dbt_deid.settings_schema.compute_code_digest), generated into the
    settings schema macro and the core (`python -m dbt_deid.settings_schema --write`; a test
    fails when it is stale). The plan (deid_release_plan) and the gate table (deid_gate_results)
    record it (column code_digest); the gate plan_settings and the publish step
    (read_gate_table) refuse a plan or a gate table that records another digest or none: a fix
    of a gate's SQL changes neither the gate set nor the plan format, and a gate table the
    older code computed must not be published by the newer one. -#}
{% macro code_digest() -%}
  {{ return(dbt_deid.own(adapter.dispatch('code_digest', 'dbt_deid'))()) }}
{%- endmacro %}

{% macro default__code_digest() -%}
  {{ return(dbt_deid.settings_schema().code_digest) }}
{%- endmacro %}
