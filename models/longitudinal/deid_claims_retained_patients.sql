{{ config(enabled=dbt_deid.claims_release_enabled(), materialized='view', tags=["deid_claims"]) }}
{%- if dbt_deid.claims_release_enabled() -%}
{%- set cfg = dbt_deid.claims_release_config() -%}
{#- The pseudonymized patients without the patients flagged in deid_claims_stigmatized_members. -#}
select * from {{ ref('dbt_deid', 'deid_claims_pseudonymized_patients') }}
where {{ dbt_deid.ident(cfg.member_id) }} not in (select member_id from {{ ref('dbt_deid', 'deid_claims_stigmatized_members') }})
{%- endif %}
