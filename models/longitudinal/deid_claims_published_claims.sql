{{ config(enabled=dbt_deid.claims_release_enabled(), tags=["deid_claims"]) }}
{%- if dbt_deid.claims_release_enabled() -%}
{%- set cfg = dbt_deid.claims_release_config() -%}
{%- set gate = ref('deid_claims_release_gate') -%}
{#- The published claims. Reads the gate view, so `dbt build` skips it when a gate test fails; as
    a second line it refuses at run time (`dbt run` runs no tests) when the gate's own verdicts
    failed. Columns: the pseudonymized ids, the quasi-identifiers at the release levels and the
    release_columns; nothing else. -#}
{%- if execute and flags.WHICH in ['run', 'build'] -%}
  {%- set failed = run_query("select measure from " ~ gate ~ " where measure in ('node_risk', 'attack1') and (passed is null or not passed) order by measure").columns[0].values() -%}
  {%- set measures = run_query("select count(*) from " ~ gate ~ " where measure in ('node_risk', 'attack1')").rows[0][0] -%}
  {%- if failed | length > 0 or measures != 2 -%}
    {{ exceptions.raise_compiler_error("model " ~ this.identifier ~ ": the claims release did not pass its gate(s) " ~ (failed | join(', ') if failed | length > 0 else '(assessment incomplete)') ~ " in deid_claims_release_gate; nothing published") }}
  {%- endif -%}
{%- endif %}
{{ dbt_deid.claims_publish_sql(cfg, 'claims', ref('deid_claims_generalized_claims')) }}
{%- endif %}
