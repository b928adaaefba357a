{{ config(enabled=dbt_deid.claims_release_enabled(), materialized='view', tags=["deid_claims"]) }}
{%- if dbt_deid.claims_release_enabled() -%}
{#- The pseudonymized claims without the patients flagged in deid_claims_stigmatized_members
    (claims_retained_sql: NOT EXISTS, a NULL flagged member id empties nothing). -#}
{{ dbt_deid.claims_retained_sql(dbt_deid.claims_release_config(), ref('dbt_deid', 'deid_claims_pseudonymized_claims'), ref('dbt_deid', 'deid_claims_stigmatized_members')) }}
{%- endif %}
