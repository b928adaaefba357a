{{ config(enabled=dbt_deid.text_release_enabled(), tags=["deid_text"]) }}
{%- if dbt_deid.text_release_enabled() -%}
{%- set gate = ref('deid_text_release_gate') -%}
{#- The de-identified documents. Reads the gate view, so `dbt build` skips it when a gate test
    fails; as a second line it refuses at run time (`dbt run` runs no tests) when the
    assessment's own verdicts did not pass (checked when running, not when compiling). #}
{%- if execute and flags.WHICH in ['run', 'build'] -%}
  {%- set failed = run_query("select measure from " ~ gate ~ " where measure <> 'direct_benchmark' and (passed is null or not passed) order by measure").columns[0].values() -%}
  {%- set measures = run_query("select count(*) from " ~ gate ~ " where measure in ('direct', 'quasi')").rows[0][0] -%}
  {%- if failed | length > 0 or measures != 2 -%}
    {{ exceptions.raise_compiler_error("model " ~ this.identifier ~ ": the text release did not pass its gate(s) " ~ (failed | join(', ') if failed | length > 0 else '(assessment incomplete)') ~ " in deid_text_risk_assessment; nothing published") }}
  {%- endif -%}
{%- endif %}
{{ dbt_deid.text_redact_sql(ref('deid_text_documents'), ref('deid_text_detections')) }}
{%- endif %}
