{{ config(enabled=dbt_deid.release_enabled(), materialized='view') }}
{%- if dbt_deid.release_enabled() %}
{#- The gate: the release gates (dbt tests, severity error) are attached to this view, and only
    the publish model reads it, so `dbt build` skips publishing when a gate fails while the
    diagnostics (risk summary, information loss) still build from deid_suppressed. #}
select * from {{ ref('deid_suppressed') }}
{%- endif %}
