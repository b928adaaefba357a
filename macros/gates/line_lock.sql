{#- Releases of one source published by one dbt invocation on several threads (issue 32, item
    2): the gate combined_releases of each must see the other's store rows, or the two tables
    are never checked together. The publish materialization runs in one transaction (the
    candidate, the gates, the swap, the history row and the store rows, then commit): two of
    them over one source can overlap, each reading the store before the other commits (and on
    DuckDB, each reads the snapshot of its transaction's start).

    So the line is locked: deid_line_locks (working schema, next to the store: one row per
    source relation, names only) holds a row per line, created by the on-run-start hook
    prepare_release_tables before any publish model runs, and the gate updates its line's row before it reads the
    store. On PostgreSQL the second publish waits until the first commits, then reads its rows
    (READ COMMITTED); on DuckDB the second fails with a write-write conflict (nothing published;
    run it again); neither publishes unchecked. Spark has no transactions: nothing is locked
    (build releases of one source one at a time there, `--threads 1`). -#}

{% macro line_locks_relation(truth) -%}
  {{ return(api.Relation.create(database=truth.database, schema=truth.schema, identifier='deid_line_locks', type='table')) }}
{%- endmacro %}

{#- prepare_release_tables (on-run-start): the lock table next to `truth` with a row for each of `sources`
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

{#- The gate combined_releases, before it reads the store: update the line's row, and the rows
    of `also` (the other sources whose releases share records with this one:
    line_lock_sources), one at a time in sorted order (two publishes taking the same rows take
    them in the same order; a deadlock PostgreSQL detects fails one of them, nothing
    published). Returns the problems that refuse the release: a lock table or a row that is
    missing locks nothing (two publishes could each read the store before the other writes),
    so it is a refusal naming the model that creates them (review of session 5: with the lock
    table dropped, two releases of one source published on four threads without being
    combined). -#}
{% macro lock_release_line(cfg, truth, also=none) -%}
  {{ return(dbt_deid.own(adapter.dispatch('lock_release_line', 'dbt_deid'))(cfg, truth, also)) }}
{%- endmacro %}

{% macro default__lock_release_line(cfg, truth, also=none) -%}
  {%- set rel = dbt_deid.line_locks_relation(truth) -%}
  {%- set mine = dbt_deid.line_source(cfg) -%}
  {%- set fix = " (the package's on-run-start hook prepare_release_tables creates it before any node of a `dbt run`, `build` or `retry` that selects a model of a release: run the release again)" -%}
  {%- if adapter.get_relation(rel.database, rel.schema, rel.identifier) is none -%}
    {{ return(["the line lock table " ~ rel ~ " is missing, so a publish of the same source on another thread could read the store before this one writes it" ~ fix]) }}
  {%- endif -%}
  {%- set problems = [] -%}
  {%- for source in ([mine] + (also or [])) | unique | sort -%}
    {% call statement('deid_line_lock_' ~ loop.index) -%}
      update {{ rel }} set locked_at = {{ dbt_deid.literal(invocation_id) }}
      where source_relation = {{ dbt_deid.literal(source) }}
    {%- endcall %}
    {%- set n = run_query('select count(*) from ' ~ rel ~ ' where source_relation = ' ~ dbt_deid.literal(source)).rows[0][0] | int -%}
    {%- if n == 0 -%}
      {%- do problems.append("the line lock table " ~ rel ~ " holds no row for the source " ~ source | replace('"', '') ~ ((", whose releases share records with this one") if source != mine else "") ~ ", so nothing locks this line" ~ fix) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(problems) }}
{%- endmacro %}

{#- Spark: no transactions, nothing to lock. Two publish models of this project's discharge
    releases selected in one invocation on several threads could each read the store before
    the other writes: refused (build them one at a time: `--threads 1`, or one publish model
    per invocation). -#}
{% macro spark__lock_release_line(cfg, truth, also=none) -%}
  {%- set publishing = [] -%}
  {%- for uid in selected_resources if uid in graph.nodes -%}
    {%- set node = graph.nodes[uid] -%}
    {%- if node.resource_type == 'model' and node.config.get('materialized') == 'deid_publish'
          and (node.name == 'deid_published' or node.name.endswith('__deid_published')) -%}
      {%- do publishing.append(node.name) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if publishing | length > 1 and (target.threads | int) > 1 -%}
    {{ return(["Spark has no transactions, and " ~ publishing | length ~ " release publish models (" ~ publishing | sort | join(', ') ~ ") are selected on " ~ target.threads ~ " threads: one could read the per-record store before another writes it, so releases of one source would not be combined. Build them one at a time (`--threads 1`, or one publish model per invocation)"]) }}
  {%- endif -%}
  {{ return([]) }}
{%- endmacro %}
