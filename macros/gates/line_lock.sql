{#- Releases of one source published by one dbt invocation on several threads (issue 32, item
    2): the gate combined_releases of each must see the other's store rows, or the two tables
    are never checked together. The publish materialization runs in one transaction (the
    candidate, the gates, the swap, the history row and the store rows, then commit): two of
    them over one source can overlap, each reading the store before the other commits (and on
    DuckDB, each reads the snapshot of its transaction's start).

    So the line is locked: deid_line_locks (working schema, next to the store: one row per
    source relation, names only) holds a row per line, created by deid_release_history_init
    before any publish model runs, and the gate updates its line's row before it reads the
    store. On PostgreSQL the second publish waits until the first commits, then reads its rows
    (READ COMMITTED); on DuckDB the second fails with a write-write conflict (nothing published;
    run it again); neither publishes unchecked. Spark has no transactions: nothing is locked
    (build releases of one source one at a time there, `--threads 1`). -#}

{% macro line_locks_relation(truth) -%}
  {{ return(api.Relation.create(database=truth.database, schema=truth.schema, identifier='deid_line_locks', type='table')) }}
{%- endmacro %}

{#- deid_release_history_init: the lock table next to `truth` with a row for each of `sources`
    (line_source of every declared release) it does not hold yet. -#}
{% macro ensure_line_locks(truth, sources) -%}
  {{ return(dbt_deid.own(adapter.dispatch('ensure_line_locks', 'dbt_deid'))(truth, sources)) }}
{%- endmacro %}

{% macro default__ensure_line_locks(truth, sources) -%}
  {%- set rel = dbt_deid.line_locks_relation(truth) -%}
  {%- set s = dbt.type_string() -%}
  {%- if adapter.get_relation(rel.database, rel.schema, rel.identifier) is none -%}
    {% call statement('deid_line_locks_create') -%}
      create table if not exists {{ rel }} (source_relation {{ s }}, locked_at {{ s }})
    {%- endcall %}
    {%- do adapter.cache_added(rel) -%}
  {%- endif -%}
  {%- set have = run_query('select source_relation from ' ~ rel).columns[0].values() | list -%}
  {%- for source in sources | unique | sort if source not in have -%}
    {% call statement('deid_line_locks_insert_' ~ loop.index) -%}
      insert into {{ rel }} (source_relation, locked_at) values ({{ dbt_deid.literal(source) }}, {{ dbt_deid.literal('') }})
    {%- endcall %}
  {%- endfor -%}
{%- endmacro %}

{#- The gate combined_releases, before it reads the store: update the line's row (none when
    the lock table or its row is missing: the publish model was run without
    deid_release_history_init, so no other publish model of the build can overlap it). -#}
{% macro lock_release_line(cfg, truth) -%}
  {{ return(dbt_deid.own(adapter.dispatch('lock_release_line', 'dbt_deid'))(cfg, truth)) }}
{%- endmacro %}

{% macro default__lock_release_line(cfg, truth) -%}
  {%- set rel = dbt_deid.line_locks_relation(truth) -%}
  {%- if adapter.get_relation(rel.database, rel.schema, rel.identifier) is none -%}{{ return(none) }}{%- endif -%}
  {% call statement('deid_line_lock') -%}
    update {{ rel }} set locked_at = {{ dbt_deid.literal(invocation_id) }}
    where source_relation = {{ dbt_deid.literal(dbt_deid.line_source(cfg)) }}
  {%- endcall %}
{%- endmacro %}

{#- Spark: no transactions, nothing to lock (see above). -#}
{% macro spark__lock_release_line(cfg, truth) -%}
  {{ return(none) }}
{%- endmacro %}
