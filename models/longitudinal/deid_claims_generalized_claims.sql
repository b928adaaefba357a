{{ config(enabled=dbt_deid.claims_release_enabled(), tags=["deid_claims"]) }}
{%- if dbt_deid.claims_release_enabled() -%}
{%- set cfg = dbt_deid.claims_release_config() -%}
{#- The released claims at the release levels: each hierarchical quasi-identifier replaced by its
    label at its level (a join to deid_claims_hierarchy on the value as a string; missing stays
    missing), other columns unchanged. Not published: the publish model selects from it. -#}
{{ dbt_deid.claims_generalize_sql(cfg, 'claims', ref('dbt_deid', 'deid_claims_d2'), ref('dbt_deid', 'deid_claims_hierarchy'), ref('dbt_deid', 'deid_claims_levels')) }}
{%- endif %}
