{{ config(enabled=dbt_deid.claims_release_enabled(), materialized='view', tags=["deid_claims"]) }}
{%- if dbt_deid.claims_release_enabled() -%}
{%- set cfg = dbt_deid.claims_release_config() -%}
{#- The claim ids of D2, for the attack model (which matches against D2 by subsetting D1). -#}
select {{ dbt_deid.ident(cfg.claim_id) }} as claim_id from {{ ref('dbt_deid', 'deid_claims_d2') }}
{%- endif %}
