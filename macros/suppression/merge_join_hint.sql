{#- Spark: a MERGE (sort-merge) join hint on the SELECTs of `sql` that join a pattern-level
    table (issue 37, session 14). Spark's planner sizes a table by its files: a pattern table or
    suppression map of millions of rows is a few MB of compressed Parquet (deid_suppression_map
    9.7 MB at 2.4 million records, under spark.sql.autoBroadcastJoinThreshold's 10 MB), so it
    is broadcast, and its hash table (over 392 MiB) does not fit the driver: "Not enough memory
    to build and broadcast the table" failed deid_suppressed_patterns at 2,375,331 records in
    local[2]. A sort-merge join spills instead; the rows are the same. `anchor`: a regular
    expression (Python `re`) matching the start of each such SELECT, its first group the word
    `select`; `relations`: the aliases the hint names (one side of each join is enough);
    `expected`: how many SELECTs must match. Anything else is a bug of dbt_deid (the default
    form changed under the Spark one) and a compile error, not a silently unhinted query. -#}
{% macro merge_join_hint(sql, anchor, relations, expected) -%}
  {{ return(dbt_deid.own(adapter.dispatch('merge_join_hint', 'dbt_deid'))(sql, anchor, relations, expected)) }}
{%- endmacro %}

{#- Other engines size the tables by their statistics (DuckDB, PostgreSQL): unchanged. -#}
{% macro default__merge_join_hint(sql, anchor, relations, expected) -%}
  {{ return(sql) }}
{%- endmacro %}

{% macro spark__merge_join_hint(sql, anchor, relations, expected) -%}
  {%- set hinted = modules.re.subn(anchor, '\\1 /*+ MERGE(' ~ relations | join(', ') ~ ') */', sql) -%}
  {%- if hinted[1] != expected -%}
    {{ exceptions.raise_compiler_error("model " ~ dbt_deid._current_node_name() ~ ": dbt_deid.merge_join_hint found " ~ hinted[1] ~ " SELECT(s) matching " ~ anchor ~ ", expected " ~ expected ~ "; this is a bug of dbt_deid (the Spark form no longer matches the default form); nothing was published") }}
  {%- endif -%}
  {{ return(hinted[0]) }}
{%- endmacro %}
