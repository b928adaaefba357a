{{ config(enabled=dbt_deid.claims_release_enabled(), tags=["deid_claims"]) }}
{%- if dbt_deid.claims_release_enabled() -%}
{%- set cfg = dbt_deid.claims_release_config() -%}
{#- Patients with at least one claim coded in the stigmatized-codes relation (El Emam et al. 2012, "Removal
    of High-Risk Patients and Claims"), by pseudonym, with their number of flagged claims.
    Removed with all their claims by the next models. Empty without stigmatized_codes. -#}
{%- set m = dbt_deid.ident(cfg.member_id) %}
{%- if cfg.stigmatized_codes is not none %}
select c.{{ m }} as member_id, count(*) as flagged_claims
from {{ ref('dbt_deid', 'deid_claims_pseudonymized_claims') }} as c
where cast(c.{{ dbt_deid.ident(cfg.stigmatized_column) }} as {{ dbt.type_string() }}) in (
    select cast(code as {{ dbt.type_string() }}) from {{ dbt_deid.claims_relation(cfg.stigmatized_codes) }} where code is not null)
group by c.{{ m }}
{%- else %}
select cast(null as {{ dbt.type_string() }}) as member_id, cast(0 as bigint) as flagged_claims where 1 = 0
{%- endif %}
{%- endif %}
