{{ config(enabled=dbt_deid.text_release_enabled(), tags=["deid_text"]) }}
{%- if dbt_deid.text_release_enabled() -%}
{%- set cfg = dbt_deid.text_release_config() -%}
{#- The first text model: checks the three inputs (one error naming the model, table, column
    and id) and stages the documents. Every other text model depends on it. #}
-- depends_on: {{ dbt_deid.text_input_relation(cfg, 'annotations') }}
-- depends_on: {{ dbt_deid.text_input_relation(cfg, 'detections') }}
{%- if execute and flags.WHICH in ['run', 'build'] -%}
  {%- do dbt_deid.assert_text_inputs(cfg) -%}
{%- endif %}
{{ dbt_deid.text_documents_sql(cfg) }}
{%- endif %}
