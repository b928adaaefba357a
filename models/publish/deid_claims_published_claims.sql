{{ config(enabled=dbt_deid.claims_release_enabled(), tags=["deid_claims"],
          materialized='deid_publish', deid_checks='claims', deid_claims_table='claims',
          deid_publish_with=['deid_claims_published_patients'],
          pre_hook="{{ dbt_deid.refuse_publish_clone() }}") }}
{%- if dbt_deid.claims_release_enabled() -%}
{%- set cfg = dbt_deid.claims_release_config() -%}
{#- The published claims: the pseudonymized ids, the claim quasi-identifiers at the release
    levels and release_columns.claims. Materialized deid_publish with the claims gates: runs
    after deid_claims_published_patients (which only stages its table), checks both tables
    (the staged patients again, exactly) and swaps both in one transaction, or refuses both
    and leaves the published ones as they were. -#}
{%- do dbt_deid.assert_no_overrides("model " ~ this.identifier) -%}
{%- if execute and config.get('materialized') != 'deid_publish' -%}
  {{ exceptions.raise_compiler_error("model " ~ this.identifier ~ ": must be materialized as deid_publish (the materialization that runs the gates on what it writes), got " ~ config.get('materialized') ~ "; remove the override") }}
{%- endif %}
-- depends_on: {{ ref('dbt_deid', 'deid_claims_release_gate') }}
{{ dbt_deid.verdict_depends_on('claims') }}
-- depends_on: {{ ref('dbt_deid', 'deid_claims_published_patients') }}
-- depends_on: {{ ref('dbt_deid', 'deid_claims_generalized_patients') }}
-- depends_on: {{ dbt_deid.claims_relation(cfg.patients) }}
-- depends_on: {{ dbt_deid.claims_relation(cfg.claims) }}
{{ dbt_deid.claims_publish_sql(cfg, 'claims', ref('dbt_deid', 'deid_claims_generalized_claims')) }}
{%- endif %}
