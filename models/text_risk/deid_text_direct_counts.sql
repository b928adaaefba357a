{{ config(enabled=dbt_deid.text_release_enabled(), tags=["deid_text"]) }}
{%- if dbt_deid.text_release_enabled() -%}
{%- set cfg = dbt_deid.text_release_config() -%}
{{ dbt_deid.text_direct_counts_sql(ref('dbt_deid', 'deid_text_document_type_counts')) }}
{%- endif %}
