{{ config(enabled=dbt_deid.claims_release_enabled(), materialized='view', tags=["deid_claims"]) }}
{%- if dbt_deid.claims_release_enabled() -%}
{%- set cfg = dbt_deid.claims_release_config() -%}
{#- The population attack 2 matches against (El Emam et al. 2012, "Empirical Evaluation", attack 2: people
    per sex and age band in the counties served, from the census, as a voter list holds them):
    the attack2_population relation (one column per attack2_qis and `population`), read by the
    attack model. Empty without attack2_population: attack 2 is then not computed. -#}
{%- if cfg.attack2_population is not none %}
select * from {{ dbt_deid.claims_relation(cfg.attack2_population) }}
{%- else %}
select cast(null as bigint) as population where 1 = 0
{%- endif %}
{%- endif %}
