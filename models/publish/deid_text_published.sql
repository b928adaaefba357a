{{ config(enabled=dbt_deid.text_release_enabled(), tags=["deid_text"],
          materialized='deid_publish', deid_checks='text',
          pre_hook="{{ dbt_deid.refuse_publish_clone() }}") }}
{%- if dbt_deid.text_release_enabled() -%}
{%- set cfg = dbt_deid.text_release_config() -%}
{#- The de-identified documents. Materialized deid_publish with the text gates
    (macros/text_risk/text_publish_gates.sql): a candidate table is written, the assessment's
    verdicts and the table's shape are checked, and only then is it swapped in; every attempt
    appends a row to deid_release_history. -#}
{%- do dbt_deid.assert_no_overrides("model " ~ this.identifier) -%}
{%- if execute and config.get('materialized') != 'deid_publish' -%}
  {{ exceptions.raise_compiler_error("model " ~ this.identifier ~ ": must be materialized as deid_publish (the materialization that runs the gates on what it writes), got " ~ config.get('materialized') ~ "; remove the override") }}
{%- endif %}
-- depends_on: {{ ref('dbt_deid', 'deid_text_release_gate') }}
{{ dbt_deid.verdict_depends_on('text') }}
-- depends_on: {{ dbt_deid.text_input_relation(cfg, 'documents') }}
{{ dbt_deid.text_redact_sql(ref('dbt_deid', 'deid_text_documents'), ref('dbt_deid', 'deid_text_detections')) }}
{%- endif %}
