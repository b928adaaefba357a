{#- PostgreSQL form of model deid_suppressed (session 14, issue 37 item 2): the same SQL as
    default__deid_model_deid_suppressed, run with merge and nested-loop joins off for its own
    transaction (postgres_hash_joins_header, the model's sql_header). The record-level table
    joins the suppression map on every QI (ten text keys at the bench's settings); the default
    plan sorted both sides for a merge join (2,375,331 records and 937,058 map rows, 422 MB and
    134 MB quicksorts: EXPLAIN ANALYZE of the bench's 2.4M build, docs/performance.md,
    "PostgreSQL at 2.4M, session 14"); a hash join on the map reads each side once (the query
    24.5 s -> 4.1 s there). Same query, same rows. -#}
{% macro postgres__deid_model_deid_suppressed() -%}
{{ config(sql_header=dbt_deid.postgres_hash_joins_header()) }}
{{ return(dbt_deid.default__deid_model_deid_suppressed()) }}
{%- endmacro %}

{#- Redshift dispatches to postgres__ but has no enable_mergejoin/enable_nestloop settings: the
    portable form, without the header. -#}
{% macro redshift__deid_model_deid_suppressed() -%}
{{ return(dbt_deid.default__deid_model_deid_suppressed()) }}
{%- endmacro %}
