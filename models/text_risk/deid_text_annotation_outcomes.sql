{{ config(enabled=dbt_deid.text_release_enabled(), tags=["deid_text"]) }}
{%- if dbt_deid.text_release_enabled() -%}
{%- set cfg = dbt_deid.text_release_config() -%}
{{ dbt_deid.text_annotation_outcomes_sql(ref('dbt_deid', 'deid_text_annotations'), ref('dbt_deid', 'deid_text_token_outcomes'), ref('dbt_deid', 'deid_text_detections')) }}
{%- endif %}
