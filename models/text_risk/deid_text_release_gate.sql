{{ config(enabled=dbt_deid.text_release_enabled(), materialized='view', tags=["deid_text"]) }}
{%- if dbt_deid.text_release_enabled() %}
{#- The text gate: the two gates (dbt tests, severity error) are attached to this view of the
    assessment, and only deid_text_published reads it, so `dbt build` skips publishing when a
    gate fails while the counts, recalls and the assessment itself still build. #}
select * from {{ ref('dbt_deid', 'deid_text_risk_assessment') }}
{%- endif %}
