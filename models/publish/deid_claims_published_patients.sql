{{ config(enabled=dbt_deid.claims_release_enabled(), tags=["deid_claims"],
          materialized='deid_publish', deid_checks='claims', deid_claims_table='patients',
          deid_published_by='deid_claims_published_claims',
          pre_hook="{{ dbt_deid.refuse_publish_clone() }}") }}
{%- if dbt_deid.claims_release_enabled() -%}
{%- set cfg = dbt_deid.claims_release_config() -%}
{#- The published patients: the pseudonymized ids, the demographic quasi-identifiers at the
    release levels and release_columns.patients. Materialized deid_publish with the claims
    gates (macros/longitudinal/claims_publish_gates.sql): the two claims tables are one
    release, so when the gates pass this table is only staged, and
    deid_claims_published_claims re-checks it and swaps both in together (or refuses both). -#}
{%- do dbt_deid.assert_no_overrides("model " ~ this.identifier) -%}
{%- if execute and config.get('materialized') != 'deid_publish' -%}
  {{ exceptions.raise_compiler_error("model " ~ this.identifier ~ ": must be materialized as deid_publish (the materialization that runs the gates on what it writes), got " ~ config.get('materialized') ~ "; remove the override") }}
{%- endif %}
-- depends_on: {{ ref('dbt_deid', 'deid_claims_release_gate') }}
{{ dbt_deid.verdict_depends_on('claims') }}
-- depends_on: {{ dbt_deid.claims_relation(cfg.patients) }}
-- depends_on: {{ dbt_deid.claims_relation(cfg.claims) }}
{{ dbt_deid.claims_publish_sql(cfg, 'patients', ref('dbt_deid', 'deid_claims_generalized_patients')) }}
{%- endif %}
