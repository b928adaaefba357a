{#- The publish materialization: a release is published only if what is actually written passes
    every gate, whatever the dbt command (`run`, `build`), selection (`-s deid_published`,
    tests excluded) or test severity.

    1. The model's SQL is written to a candidate table next to the target.
    2. Every gate runs on the candidate (dbt_deid.publish_gate_results; the same queries as the
       dbt tests).
    3. All pass: the candidate replaces the published table (as dbt's table materialization
       does) and a 'published' row is appended to deid_release_history. Any fails: the
       candidate is dropped, the published table stays as it was (the last good release), a
       'refused' row is appended to the history, and the model fails with the gates' messages
       (figures and limits, never quasi-identifier values).

    Config: `deid_checks` names the gate set ('release'). -#}
{% materialization deid_publish, default %}
  {%- set target_relation = this.incorporate(type='table') -%}
  {%- set existing_relation = load_cached_relation(this) -%}
  {%- set candidate = make_intermediate_relation(target_relation, suffix='__deid_candidate') -%}
  {%- set backup_relation = make_backup_relation(target_relation, 'table' if existing_relation is none else existing_relation.type) -%}
  {%- set grant_config = config.get('grants') -%}
  {{ drop_relation_if_exists(load_cached_relation(candidate)) }}
  {{ drop_relation_if_exists(load_cached_relation(backup_relation)) }}

  {{ run_hooks(pre_hooks, inside_transaction=False) }}
  {{ run_hooks(pre_hooks, inside_transaction=True) }}

  {% call statement('main') -%}
    {{ get_create_table_as_sql(False, candidate, sql) }}
  {%- endcall %}

  {#- `dbt build --empty` (every ref reads no rows): nothing is released. An empty candidate
      becomes the published table only when there is none yet (the columns, no record, so
      downstream models can be built with --empty); an existing release is left as it is; no
      history row is written. A candidate that holds records goes through the gates as always
      (fail closed). -#}
  {%- if flags.EMPTY and run_query('select count(*) from ' ~ candidate).rows[0][0] == 0 -%}
    {%- if existing_relation is none -%}
      {{ adapter.rename_relation(candidate, target_relation) }}
    {%- else -%}
      {{ drop_relation_if_exists(candidate) }}
    {%- endif -%}
    {{ adapter.commit() }}
    {%- do log("dbt_deid: " ~ this.identifier ~ ": --empty: nothing released (" ~ ("an empty table with the published columns" if existing_relation is none else "the published table is left as it was") ~ ")", info=true) -%}
    {{ return({'relations': [target_relation]}) }}
  {%- endif -%}

  {%- set results = dbt_deid.publish_gate_results(config.get('deid_checks'), candidate) -%}
  {%- set failed = results | rejectattr('passed') | list -%}
  {%- if failed | length > 0 or results | length == 0 -%}
    {{ drop_relation_if_exists(candidate) }}
    {%- do dbt_deid.record_release(target_relation, 'refused', results, none) -%}
    {{ adapter.commit() }}
    {{ exceptions.raise_compiler_error("model " ~ this.identifier ~ ": release refused, nothing published" ~ (" (the previous " ~ target_relation ~ " is left as it was)" if existing_relation is not none else "") ~ ". Failed gate(s):\n  " ~ (dbt_deid.gate_failure_message(results) if results else '(no gate ran)')) }}
  {%- endif -%}

  {%- set published_rows = run_query('select count(*) from ' ~ candidate).rows[0][0] -%}
  {%- if existing_relation is not none -%}
    {%- set existing_relation = load_cached_relation(existing_relation) -%}
    {%- if existing_relation is not none -%}
      {{ adapter.rename_relation(existing_relation, backup_relation) }}
    {%- endif -%}
  {%- endif -%}
  {{ adapter.rename_relation(candidate, target_relation) }}
  {%- do dbt_deid.record_release(target_relation, 'published', results, published_rows) -%}
  {{ run_hooks(post_hooks, inside_transaction=True) }}
  {%- do apply_grants(target_relation, grant_config, should_revoke=should_revoke(existing_relation, full_refresh_mode=True)) -%}
  {%- do persist_docs(target_relation, model) -%}
  {{ adapter.commit() }}
  {{ drop_relation_if_exists(backup_relation) }}
  {{ run_hooks(post_hooks, inside_transaction=False) }}
  {%- do log("dbt_deid: " ~ this.identifier ~ ": published " ~ published_rows ~ " rows; " ~ results | length ~ " gates passed", info=true) -%}
  {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}

{#- The gate results for a publish model's candidate table, by gate set. -#}
{% macro publish_gate_results(checks, candidate) -%}
  {{ return(adapter.dispatch('publish_gate_results', 'dbt_deid')(checks, candidate)) }}
{%- endmacro %}

{% macro default__publish_gate_results(checks, candidate) -%}
  {%- if checks == 'release' -%}
    {{ return(dbt_deid.release_gate_results(dbt_deid.release_config(), candidate, ref('deid_release_gate'))) }}
  {%- endif -%}
  {{ exceptions.raise_compiler_error("model " ~ this.identifier ~ ": config deid_checks must name the gate set of the publish materialization ('release'), got " ~ checks) }}
{%- endmacro %}

{#- Append one row to deid_release_history (created when absent, next to the published table):
    which release the published table holds, or that a release was refused. Settings are
    recorded by their hash; no quasi-identifier value and no secret is written. -#}
{% macro record_release(target_relation, status, results, published_rows) -%}
  {{ return(adapter.dispatch('record_release', 'dbt_deid')(target_relation, status, results, published_rows)) }}
{%- endmacro %}

{% macro default__record_release(target_relation, status, results, published_rows) -%}
  {%- set history = api.Relation.create(database=target_relation.database, schema=target_relation.schema, identifier='deid_release_history', type='table') -%}
  {%- set s = dbt.type_string() -%}
  {%- if load_cached_relation(history) is none and adapter.get_relation(history.database, history.schema, history.identifier) is none -%}
    {% call statement('deid_history_create') -%}
      create table {{ history }} (
        release_name {{ s }}, published_relation {{ s }}, status {{ s }}, invocation_id {{ s }},
        recorded_at {{ s }}, published_rows {{ dbt.type_bigint() }}, settings_md5 {{ s }},
        gates_passed {{ s }}, gates_failed {{ s }}
      )
    {%- endcall %}
  {%- endif -%}
  {%- set release = var('deid_release', {}) -%}
  {%- set passed = results | selectattr('passed') | map(attribute='gate') | list -%}
  {%- set failed = results | rejectattr('passed') | map(attribute='gate') | list -%}
  {% call statement('deid_history_insert') -%}
    insert into {{ history }} values (
      {{ dbt_deid.literal(release.get('name', 'release')) }}, {{ dbt_deid.literal(target_relation | string) }},
      {{ dbt_deid.literal(status) }}, {{ dbt_deid.literal(invocation_id) }},
      {{ dbt_deid.literal(modules.datetime.datetime.utcnow().strftime('%Y-%m-%dT%H:%M:%SZ')) }},
      {{ published_rows if published_rows is not none else 'null' }},
      {{ dbt_deid.literal(local_md5(tojson(release, sort_keys=true))) }},
      {{ dbt_deid.literal(passed | join(', ')) }}, {{ dbt_deid.literal(failed | join(', ')) }}
    )
  {%- endcall %}
{%- endmacro %}
