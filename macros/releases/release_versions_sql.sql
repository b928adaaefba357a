{#- The release's rows of deid_release_history (every published and refused version of its
    published table, with the combined_releases figures): `history` is the history relation
    next to the publish model `published`. -#}
{% macro release_versions_sql(cfg, history, published) -%}
  {{ return(dbt_deid.own(adapter.dispatch('release_versions_sql', 'dbt_deid'))(cfg, history, published)) }}
{%- endmacro %}

{% macro default__release_versions_sql(cfg, history, published) -%}
{%- set tail = '.' ~ (published.include(database=false) | string) %}
select release_version, status, recorded_at, published_rows, package_version, gates_failed,
  records_shared, combined_min_consistent, invocation_id
from {{ history }}
where release_name = {{ dbt_deid.literal(cfg.name) }}
  and (published_relation = {{ dbt_deid.literal(published | string) }}
       or {{ dbt.right('published_relation', tail | length) }} = {{ dbt_deid.literal(tail) }})
{%- endmacro %}
