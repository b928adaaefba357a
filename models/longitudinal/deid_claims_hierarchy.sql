{{ config(enabled=dbt_deid.claims_release_enabled(), tags=["deid_claims"]) }}
{%- if dbt_deid.claims_release_enabled() -%}
{%- set cfg = dbt_deid.claims_release_config() -%}
{#- Every hierarchy of the claims release in long form (qi_name, level, original_value,
    generalized_value as strings): what the LOLA model reads and the generalized models join. -#}
{%- for q, rel in cfg.hierarchies.items() %}
-- depends_on: {{ dbt_deid.claims_relation(rel) }}
{%- endfor %}
{%- if execute %}
{{ dbt_deid.claims_hierarchy_sql(cfg) }}
{%- else %}
select cast(null as {{ dbt.type_string() }}) as qi_name, 0 as level, cast(null as {{ dbt.type_string() }}) as original_value, cast(null as {{ dbt.type_string() }}) as generalized_value
{%- endif %}
{%- endif %}
