{{ config(enabled=dbt_deid.claims_release_enabled(), materialized='view', tags=["deid_claims"]) }}
{%- if dbt_deid.claims_release_enabled() -%}
{%- set cfg = dbt_deid.claims_release_config() -%}
{#- The pseudonymized patients without the patients flagged in deid_claims_stigmatized_members.
    NOT EXISTS, not NOT IN: a NULL in the flagged list made NOT IN unknown for every row (both
    tables emptied), and rows without a member id were dropped whatever was flagged; here they
    are removed only when the flagged list holds NULL (claims without a member id had a
    stigmatized code). Two conditions, not an OR in one subquery: engines keep the anti-join. -#}
select * from {{ ref('dbt_deid', 'deid_claims_pseudonymized_patients') }} as r
where not exists (
    select 1 from {{ ref('dbt_deid', 'deid_claims_stigmatized_members') }} as s
    where s.member_id = r.{{ dbt_deid.ident(cfg.member_id) }})
  and not (r.{{ dbt_deid.ident(cfg.member_id) }} is null and exists (
    select 1 from {{ ref('dbt_deid', 'deid_claims_stigmatized_members') }} as s where s.member_id is null))
{%- endif %}
