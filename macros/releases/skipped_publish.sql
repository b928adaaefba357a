{#- A release that `dbt build` never got to publish still gets its history row (issue 17: a
    failed release writes a row marked failed, naming what failed).

    Under `dbt build` a failing gate test (or an erroring model) upstream of a publish model makes
    dbt skip that model, so its materialization, which writes the history row of every attempt
    it runs (dbt_deid.record_release), never runs. This on-run-end hook of the package appends a
    'refused' row for every skipped publish model: the release, its settings (JSON and MD5), the
    invocation, and in gates_failed / gates_json the failed tests and errored models upstream of
    it (names and failure counts only: never a value). Nothing was published, so the published
    fingerprint, version and figures stay empty.

    A publish model that failed with an error and has no history row of this invocation (it
    raised before its materialization recorded the attempt: a `+materialized` override, a
    replaced macro, an ambiguous name; review 8, F3) gets a 'refused' row too, gate
    `build_error`, naming the model, never the error's text. Publish models are found by
    dbt_deid.is_publish_node, not by their materialization alone (an override changes it). -#}
{% macro record_skipped_releases(results) -%}
  {{ return(dbt_deid.own(adapter.dispatch('record_skipped_releases', 'dbt_deid'))(results)) }}
{%- endmacro %}

{% macro default__record_skipped_releases(results) -%}
  {%- if not execute or results is none -%}{{ return('') }}{%- endif -%}
  {%- set broken = [] -%}
  {%- for r in results -%}
    {%- if (r.status | string) in ['fail', 'error'] -%}{%- do broken.append(r) -%}{%- endif -%}
  {%- endfor -%}
  {%- for r in results -%}
    {%- set node = r.node -%}
    {%- set publish = dbt_deid.is_publish_node(node) -%}
    {%- if publish and (r.status | string) == 'error' and dbt_deid._publish_write_conflict(r.message) -%}
      {#- rolled back by the warehouse's write-write conflict before it recorded its attempt:
          its history row, written here, outside that transaction (the message is named, never
          copied: a warehouse's error text may quote values) -#}
      {%- do dbt_deid._append_skipped_release(node, [{'gate': 'write_conflict', 'passed': false, 'failures': 1,
          'message': 'dbt ' ~ flags.WHICH ~ ': ' ~ node.name ~ ' failed with the warehouse\'s write-write conflict: another publish of the same source (its line\'s row in deid_line_locks) ran on another thread of this build, and this one was rolled back before it recorded its attempt; nothing was published. Run it again, or build with --threads 1 (docs/combined-lines.md)'}],
          'failed with a write-write conflict') -%}
    {%- elif publish and (r.status | string) == 'error' -%}
      {#- failed before its materialization recorded the attempt (review 8, F3): refused while
          dbt rendered it (a `+materialized` override, a replaced macro, an ambiguous name) or
          an error in its gates' queries; a refusal by the gates has its row already
          (_append_skipped_release skips it). The error's text is not copied (it may quote
          values) -#}
      {%- do dbt_deid._append_skipped_release(node, [{'gate': 'build_error', 'passed': false, 'failures': 1,
          'message': 'dbt ' ~ flags.WHICH ~ ': ' ~ node.name ~ ' failed before its gates ran or recorded their verdicts (an error while dbt rendered or ran it; its text is in the dbt log, not copied here); nothing was published'}],
          'failed with an error') -%}
    {%- elif publish and (r.status | string) == 'skipped' -%}
      {%- set ancestors = dbt_deid._ancestors(node.unique_id) -%}
      {%- set causes = [] -%}
      {%- for b in broken -%}
        {%- set parents = b.node.depends_on.nodes if (b.node.resource_type | string) == 'test' else [b.node.unique_id] -%}
        {%- if parents | select('in', ancestors) | list | length > 0 -%}
          {%- do causes.append({'gate': b.node.name, 'passed': false, 'failures': b.failures,
                                'message': 'dbt ' ~ flags.WHICH ~ ' skipped ' ~ node.name ~ ': ' ~ (b.node.resource_type | string) ~ ' ' ~ b.node.name ~ ' ' ~ (b.status | string) ~ ('ed' if (b.status | string) == 'fail' else '') ~ (' (' ~ b.failures ~ ' failing row(s))' if b.failures else '')}) -%}
        {%- endif -%}
      {%- endfor -%}
      {%- do dbt_deid._append_skipped_release(node, causes) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return('') }}
{%- endmacro %}

{#- The unique ids of every node upstream of `unique_id` in the graph. -#}
{% macro _ancestors(unique_id) -%}
  {%- set seen = [] -%}
  {%- set todo = [unique_id] -%}
  {%- for _ in range(10000) if todo | length > 0 -%}
    {%- set current = todo.pop() -%}
    {%- set n = graph.nodes.get(current) -%}
    {%- for parent in (n.depends_on.nodes if n is not none else []) -%}
      {%- if parent not in seen -%}{%- do seen.append(parent) -%}{%- do todo.append(parent) -%}{%- endif -%}
    {%- endfor -%}
  {%- endfor -%}
  {{ return(seen) }}
{%- endmacro %}

{#- The settings var of a publish model's release (by its gate set and name). -#}
{% macro _skipped_release_settings(node) -%}
  {%- set checks = node.config.get('deid_checks') -%}
  {%- if checks == 'claims' -%}{{ return(var('deid_claims_release', none) or {}) }}{%- endif -%}
  {%- if checks == 'text' -%}{{ return(var('deid_text_release', none) or {}) }}{%- endif -%}
  {%- set split = dbt_deid._split_release_node(node.name) -%}
  {%- if split is not none -%}{{ return(dbt_deid.extra_releases().get(split[0]) or {}) }}{%- endif -%}
  {{ return(var('deid_release', none) or {}) }}
{%- endmacro %}

{#- Whether a node's error message is the warehouse's write-write conflict (DuckDB: "TransactionContext
    Error: Conflict on update!"; the line lock, macros/gates/line_lock.sql). -#}
{% macro _publish_write_conflict(message) -%}
  {%- set m = (message or '') | lower -%}
  {{ return('write-write conflict' in m or ('transactioncontext error' in m and 'conflict' in m)) }}
{%- endmacro %}

{% macro _append_skipped_release(node, causes, what='was skipped by dbt') -%}
  {%- set target_relation = api.Relation.create(database=node.database, schema=node.schema, identifier=node.alias or node.name, type='table') -%}
  {%- set history = api.Relation.create(database=node.database, schema=node.schema, identifier='deid_release_history', type='table') -%}
  {%- do dbt_deid.ensure_release_history(history) -%}
  {%- set settings = dbt_deid._skipped_release_settings(node) -%}
  {%- set settings_json = tojson(settings, sort_keys=true) -%}
  {%- set have = adapter.get_columns_in_relation(history) | map(attribute='name') | map('lower') | list -%}
  {%- set row = {
    'release_name': settings.get('name', 'release'), 'published_relation': target_relation | string,
    'status': 'refused', 'invocation_id': invocation_id,
    'recorded_at': modules.datetime.datetime.utcnow().strftime('%Y-%m-%dT%H:%M:%SZ'),
    'invocation_started_at': run_started_at.strftime('%Y-%m-%dT%H:%M:%SZ'),
    'settings_json': settings_json, 'settings_md5': local_md5(settings_json),
    'gates_passed': '', 'gates_failed': (causes | map(attribute='gate') | join(', ')) or ('dbt ' ~ flags.WHICH ~ ' skipped ' ~ node.name),
    'gates_json': tojson(causes), 'release_id': dbt_deid.release_id(target_relation, 'refused'),
    'package_version': dbt_deid.package_version(),
    'release_kind': {'release': 'discharge'}.get(node.config.get('deid_checks'), node.config.get('deid_checks'))
  } -%}
  {%- set names = row.keys() | select('in', have) | list -%}
  {#- a publish model refused by another's materialization in this run (the claims tables are
      refused together) already has its row -#}
  {%- set already = run_query("select count(*) from " ~ history ~ " where invocation_id = " ~ dbt_deid.literal(invocation_id) ~ " and published_relation = " ~ dbt_deid.literal(target_relation | string)).rows[0][0] -%}
  {%- if already > 0 -%}{{ return('') }}{%- endif -%}
  {% call statement('deid_history_skipped_' ~ node.name) -%}
    insert into {{ history }} ({{ names | join(', ') }}) values ({% for n in names %}{{ dbt_deid.literal(row[n]) }}{{ ',' if not loop.last }}{% endfor %})
  {%- endcall %}
  {{ adapter.commit() }}
  {%- do log("dbt_deid: " ~ node.name ~ " " ~ what ~ " (" ~ row.gates_failed ~ "): nothing published; a 'refused' row is in " ~ history, info=true) -%}
{%- endmacro %}
