{{ config(enabled=dbt_deid.claims_release_enabled(), tags=["deid_claims"]) }}
{%- if dbt_deid.claims_release_enabled() -%}
{%- set cfg = dbt_deid.claims_release_config() -%}
{#- The published claims. Reads the gate view, so `dbt build` skips it when a gate test fails, and
    refuses at run time when the gate's own verdicts failed (`dbt run` runs no tests). Columns:
    the pseudonymized ids, the quasi-identifiers at the release levels and the release_columns. -#}
{%- do dbt_deid.assert_claims_gate_passed(ref('deid_claims_release_gate')) -%}
{{ dbt_deid.claims_publish_sql(cfg, 'claims', ref('deid_claims_generalized_claims')) }}
{%- endif %}
