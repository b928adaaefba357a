{{ config(enabled=dbt_deid.claims_release_enabled(), materialized='view', tags=["deid_claims"]) }}
{%- if dbt_deid.claims_release_enabled() -%}
{%- set cfg = dbt_deid.claims_release_config() -%}
{#- The population attack 3 matches against (El Emam et al. 2012, "Attack 3": the State
    Inpatient Database, every inpatient visit of the state, of which the release is a sample):
    the attack3_population relation, one row per inpatient visit (attack3_patient_column,
    attack3_year_column and the QIs of attack3_qi_sets coded as the release's input), read by
    deid_claims_attack3. Empty without attack3_population: attack 3 is then not computed. -#}
{%- if cfg.attack3_population is not none %}
select * from {{ dbt_deid.claims_relation(cfg.attack3_population) }}
{%- else %}
select cast(null as {{ dbt.type_string() }}) as patient_id where 1 = 0
{%- endif %}
{%- endif %}
