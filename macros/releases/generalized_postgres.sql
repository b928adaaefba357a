{#- PostgreSQL form of model deid_generalized (session 14, issue 37 item 2): the same SQL as
    default__deid_model_deid_generalized, run with merge and nested-loop joins off for its own
    transaction (postgres_hash_joins_header, the model's sql_header). The record-level table
    joins each QI's hierarchy level; the default plan sorted the 2.4 million records once per
    QI for merge joins on the original values (EXPLAIN ANALYZE of the bench's 2.4M build: 12.7 s
    with merge joins, 9.7 s with hash joins only; docs/performance.md, "PostgreSQL at 2.4M,
    session 14"). Same query, same rows. -#}
{% macro postgres__deid_model_deid_generalized() -%}
{{ config(sql_header=dbt_deid.postgres_hash_joins_header()) }}
{{ return(dbt_deid.default__deid_model_deid_generalized()) }}
{%- endmacro %}

{#- Redshift dispatches to postgres__ but has no enable_mergejoin/enable_nestloop settings: the
    portable form, without the header. -#}
{% macro redshift__deid_model_deid_generalized() -%}
{{ return(dbt_deid.default__deid_model_deid_generalized()) }}
{%- endmacro %}
