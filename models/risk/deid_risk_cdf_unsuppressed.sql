{{ config(enabled=dbt_deid.release_enabled()) }}
{%- if dbt_deid.release_enabled() -%}
{%- set cfg = dbt_deid.release_config() -%}
{#- The stages before suppression depend on deid_generalized only: as their own model they run
    while the suppression map is computed, not after it. -#}
select * from ({{ dbt_deid.risk_cdf_sql(ref('deid_generalized'), cfg.record_id, cfg.combinations, 'original') }}) as o
union all
select * from ({{ dbt_deid.risk_cdf_sql(ref('deid_generalized'), cfg.record_id, cfg.combinations, 'generalized') }}) as g
{%- endif %}
