{#- The plan format of this package (review 12, H1): the number of the release plan's content
    (the core's resolver output) and of the gate set (release_gate_names), defined once in the
    Python core (dbt_deid.settings_schema.PLAN_FORMAT) and generated into the settings schema
    macro (`python -m dbt_deid.settings_schema --write`). The plan (deid_release_plan) and the
    gate table (deid_gate_results) record it (column plan_format); the gate plan_settings and
    the publish step (read_gate_table) refuse a plan or a gate table that records another
    number or none: what an older dbt_deid resolved and checked is not published by this one.
    Bumped whenever the gate set or the resolver's output changes (docs/gate-once.md). -#}
{% macro plan_format() -%}
  {{ return(dbt_deid.own(adapter.dispatch('plan_format', 'dbt_deid'))()) }}
{%- endmacro %}

{% macro default__plan_format() -%}
  {{ return(dbt_deid.settings_schema().plan_format | int) }}
{%- endmacro %}
