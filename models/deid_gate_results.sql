{{ config(enabled=dbt_deid.release_enabled()) }}
{%- if dbt_deid.release_enabled() -%}
{%- set cfg = dbt_deid.release_config() -%}
{#- Every release gate's verdict on the checked release, from the same queries as the gate
    tests and the publish materialization; the report reads it. It reads deid_suppressed (what
    the gate view deid_release_gate shows), not the gate view, so `dbt build` still builds it,
    and the report, when a gate test fails. -#}
{%- if dbt_deid.small_areas_enabled() %}
-- depends_on: {{ ref('deid_small_areas') }}
{%- endif %}
{%- do dbt_deid.release_source(cfg) -%}  {#- the input_unchanged gate reads the source -#}
{%- set gate = ref('deid_suppressed') -%}
{%- set results = dbt_deid.release_gate_results(cfg, gate, gate) -%}
{%- if results | length == 0 %}
select cast(null as {{ dbt.type_int() }}) as gate_order, cast(null as {{ dbt.type_string() }}) as gate, cast(null as {{ dbt.type_boolean() }}) as passed,
  cast(null as {{ dbt.type_int() }}) as failures, cast(null as {{ dbt.type_string() }}) as message
where 1 = 0
{%- else %}
{%- for r in results %}
select {{ loop.index }} as gate_order, {{ dbt_deid.literal(r.gate) }} as gate, {{ 'true' if r.passed else 'false' }} as passed,
  {{ r.failures }} as failures, {{ dbt_deid.literal(r.message) }} as message
{%- if not loop.last %} union all{% endif %}
{%- endfor %}
{%- endif %}
{%- endif %}
