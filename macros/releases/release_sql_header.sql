{#- The sql_header of the package's release models on an engine whose defaults starve them
    (issue 37, item 2): statements that run before each model's create statement, inside its
    transaction only (`set local`/`set_config(..., true)`: the session is unchanged after the
    model's commit). None on every engine but PostgreSQL. Never the publish model's sql_header (a
    header there runs inside the publish step; dbt_deid.publish_hook_results refuses any): the
    publish materialization runs this one itself, before its candidate (issue 37, session 16). -#}
{% macro release_sql_header() -%}
  {{ return(dbt_deid.own(adapter.dispatch('release_sql_header', 'dbt_deid'))()) }}
{%- endmacro %}

{% macro default__release_sql_header() -%}
  {{ return(none) }}
{%- endmacro %}

{% macro postgres__release_sql_header() -%}
  {{ return(dbt_deid.postgres_work_mem_header()) }}
{%- endmacro %}

{#- Redshift dispatches to postgres__ forms but has neither work_mem nor pg_size_bytes. -#}
{% macro redshift__release_sql_header() -%}
  {{ return(none) }}
{%- endmacro %}

{#- PostgreSQL: raise work_mem to 512MB for the model's transaction, never lower it (a server or
    role that sets more keeps its value). At the default 4MB every grouping, sort and hash of a
    release model over more than a few ten thousand rows spills to temporary files: auto_explain
    in bench/bench_engines.py at 2.4 million records, 0.3-1.8 GB written per model (external
    merge sorts, hash joins and aggregates in up to 69 batches); docs/performance.md,
    "PostgreSQL at 2.4M, session 9". Memory is taken only as a node needs it; DuckDB, the
    baseline, holds the same work in its 3GB buffer pool (the demo profile's memory_limit).
    And JIT compilation off (PostgreSQL 11+; `jit` on by default since 12): the release models'
    wide expressions (a CASE per column, up to 110 joins) exceed jit_optimize_above_cost on
    their row estimates, and LLVM's inlining and optimization of their 100-2,400 functions cost
    more than the execution: deid_information_loss at 2.4 million records, 54.4 s of which JIT
    34.7 s, 28.1 s with jit off (EXPLAIN ANALYZE on the bench's tables, session 9). -#}
{% macro postgres_work_mem_header() -%}
select set_config('work_mem', '512MB', true) where pg_size_bytes(current_setting('work_mem')) < pg_size_bytes('512MB');
select set_config('jit', 'off', true) where current_setting('jit', true) is not null;
{%- endmacro %}
