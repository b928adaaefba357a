{{ config(enabled=dbt_deid.release_enabled()) }}
{%- if dbt_deid.release_enabled() -%}
{%- set cfg = dbt_deid.release_config() -%}
{#- The fingerprint of the release input and the settings hash, as the release manifest records
    them (dbt_deid.record_release): the report shows what it was computed from. One row. -#}
{%- set src = dbt_deid.release_source(cfg) -%}
{%- set columns = dbt_deid.released_source_columns(cfg) if execute else [] -%}
select {{ dbt_deid.literal(cfg.name) }} as release_name,
  {{ dbt_deid.literal(local_md5(tojson(var('deid_release', {}), sort_keys=true))) }} as settings_md5,
  {{ dbt_deid.literal(dbt_deid.package_version()) }} as package_version,
  {{ dbt_deid.literal(src | string) }} as input_relation,
  {{ dbt_deid.literal(columns | join(', ')) }} as input_columns,
  f.row_count as input_rows,
  f.fingerprint as input_hash
from ({{ dbt_deid.table_fingerprint_sql(src, columns) }}) as f
{%- endif %}
