{{ config(enabled=dbt_deid.text_release_enabled(), tags=["deid_text"]) }}
{%- if dbt_deid.text_release_enabled() -%}
{%- set cfg = dbt_deid.text_release_config() -%}
{{ dbt_deid.text_quasi_counts_sql(ref('dbt_deid', 'deid_text_annotation_outcomes')) }}
{%- endif %}
