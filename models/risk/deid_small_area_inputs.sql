{{ config(enabled=dbt_deid.release_enabled()) }}
{%- if dbt_deid.small_areas_enabled() -%}
{{ dbt_deid.small_area_inputs_sql(dbt_deid.risk_suite_config()) }}
{%- elif dbt_deid.release_enabled() -%}
{#- no small_areas declared: an empty table, so the report model can always read it -#}
select 0 as area_level, cast(null as {{ dbt.type_string() }}) as area, 0.0 as population,
  cast(0 as {{ dbt.type_bigint() }}) as records, cast(0 as {{ dbt.type_bigint() }}) as maxcombs,
  cast(null as {{ dbt.type_string() }}) as geography_column, 0 as released_level, 0.0 as threshold,
  0 as source_areas_without_population
where 1 = 0
{%- endif %}
