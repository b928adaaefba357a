{#- Second line of defence for the claims publish models: `dbt run` runs no tests, so at run time
    refuse to publish when the gate's own verdicts (node_risk, attack1) did not both pass. -#}
{% macro assert_claims_gate_passed(gate) -%}
  {{ return(dbt_deid.own(adapter.dispatch('assert_claims_gate_passed', 'dbt_deid'))(gate)) }}
{%- endmacro %}

{% macro default__assert_claims_gate_passed(gate) -%}
  {%- if execute and flags.WHICH in ['run', 'build'] -%}
    {%- set failed = run_query("select measure from " ~ gate ~ " where measure in ('node_risk', 'attack1') and (passed is null or not passed) order by measure").columns[0].values() -%}
    {%- set measures = run_query("select count(*) from " ~ gate ~ " where measure in ('node_risk', 'attack1')").rows[0][0] -%}
    {%- if failed | length > 0 or measures != 2 -%}
      {{ exceptions.raise_compiler_error("model " ~ this.identifier ~ ": the claims release did not pass its gate(s) " ~ (failed | join(', ') if failed | length > 0 else '(assessment incomplete)') ~ " in deid_claims_release_gate; nothing published") }}
    {%- endif -%}
  {%- endif -%}
{%- endmacro %}

