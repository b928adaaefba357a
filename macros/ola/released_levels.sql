{#- True when the release declares generalization.search: ola (enables the OLA models). -#}
{% macro ola_enabled() -%}
  {{ return(dbt_deid.own(adapter.dispatch('ola_enabled', 'dbt_deid'))()) }}
{%- endmacro %}

{% macro default__ola_enabled() -%}
  {%- set release = dbt_deid.release_settings() -%}
  {%- if release is not mapping or release.get('generalization') is not mapping -%}{{ return(false) }}{%- endif -%}
  {{ return(release.generalization.get('search') == 'ola') }}
{%- endmacro %}

{#- The released level of every QI: {} for fixed levels (each QI at its `level`), or with
    `search: ola` the levels chosen by OLA, read from deid_ola_levels at execute time (like
    release_plan() reads the plan; empty while parsing). Calling it makes the model depend on
    deid_ola_levels, whose gate deid_ola_node_found makes `dbt build` skip it when no node
    passes; under `dbt run` (no tests) it raises the gate's message itself. -#}
{% macro released_levels() -%}
  {{ return(dbt_deid.own(adapter.dispatch('released_levels', 'dbt_deid'))()) }}
{%- endmacro %}

{% macro default__released_levels() -%}
  {%- set ola = dbt_deid.ola_config() -%}
  {%- if ola is none -%}{{ return({}) }}{%- endif -%}
  {%- set rel = dbt_deid.release_ref('deid_ola_levels') -%}
  {%- if not execute -%}{{ return({}) }}{%- endif -%}
  {%- set rows = run_query("select qi_name, level, message from " ~ rel ~ " order by qi_order").rows -%}
  {%- set out = {} -%}
  {%- for r in rows -%}
    {%- if r[1] is none -%}
      {{ exceptions.raise_compiler_error("model " ~ this.identifier ~ ": " ~ (r[2] or 'OLA found no node that passes') ~ " (gate deid_ola_node_found)") }}
    {%- endif -%}
    {%- do out.update({r[0]: r[1] | int}) -%}
  {%- endfor -%}
  {{ return(out) }}
{%- endmacro %}
