{{ config(enabled=dbt_deid.release_enabled(), materialized='deid_publish', deid_checks='release') }}
{%- if dbt_deid.release_enabled() -%}
{%- set cfg = dbt_deid.release_config() -%}
{#- The publish model. Its materialization (deid_publish) writes a candidate table, runs every
    release gate on it and replaces the published table only when all pass: `dbt run`,
    `dbt build -s deid_published`, excluded tests and severity overrides cannot publish a failing
    release. Every source column must have a role (dbt_deid.assert_column_roles). -#}
{%- if execute -%}
  {%- if config.get('materialized') != 'deid_publish' -%}
    {{ exceptions.raise_compiler_error("model " ~ this.identifier ~ ": must be materialized as deid_publish (the materialization that runs the gates on what it writes), got " ~ config.get('materialized') ~ "; remove the override") }}
  {%- endif -%}
  {%- do dbt_deid.assert_column_roles(cfg) -%}
{%- endif %}
{#- The release manifest (dbt_deid.record_release) reads the achieved figures and the
    information loss of this release: built first. #}
-- depends_on: {{ ref('deid_risk_summary') }}
-- depends_on: {{ ref('deid_information_loss') }}
{%- if dbt_deid.small_areas_enabled() %}
-- depends_on: {{ ref('deid_small_areas') }}
{%- endif %}
{{ dbt_deid.publish_sql(cfg, ref('deid_release_gate')) }}
{%- endif %}
