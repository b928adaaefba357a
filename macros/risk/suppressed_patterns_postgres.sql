{#- PostgreSQL form of model deid_suppressed_patterns, which computes the exact check once per
    build (its deid_consistent_<i> columns; the model deid_exact_consistent before session 13,
    issue 37, item 2): the same SQL as default__deid_model_deid_suppressed_patterns, run with
    merge and nested-loop joins off for its own transaction (`set local`, the model's
    sql_header). The planner has no statistics on the
    CTEs, so it estimates each suppression mask's released group at about one row and joins the
    true tuples to it with a merge join on the columns that the previous join left sorted, the
    other kept columns a join filter: 22 million filtered rows for one mask at 240,000 records
    (EXPLAIN ANALYZE). Hash joins on every kept column: 21.4 s -> 4.2 s for one combination,
    the node 35-38 s -> 10-12 s at 240,000 records. At 2.4 million records the default plan
    already is hash joins (same time; docs/performance.md, session 7). Same query, same rows. -#}
{% macro postgres__deid_model_deid_suppressed_patterns() -%}
{{ config(sql_header=dbt_deid.postgres_hash_joins_header()) }}
{{ return(dbt_deid.default__deid_model_deid_suppressed_patterns()) }}
{%- endmacro %}

{#- `set local` statements that leave PostgreSQL only hash joins (and the scans) for the rest of
    the model's transaction, with every release model's work_mem (postgres_work_mem_header);
    the session's settings are untouched after its commit. -#}
{% macro postgres_hash_joins_header() -%}
set local enable_mergejoin = off;
set local enable_nestloop = off;
{{ dbt_deid.postgres_work_mem_header() }}
{%- endmacro %}

{#- Redshift dispatches to postgres__ but has no enable_mergejoin/enable_nestloop settings (an
    unknown parameter fails the model): the portable form, without the header. -#}
{% macro redshift__deid_model_deid_suppressed_patterns() -%}
{{ return(dbt_deid.default__deid_model_deid_suppressed_patterns()) }}
{%- endmacro %}
