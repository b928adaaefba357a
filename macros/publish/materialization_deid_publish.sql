{#- The publish materialization: a release is published only if what is actually written passes
    every gate, whatever the dbt command (`run`, `build`), selection (`-s deid_published`,
    tests excluded) or test severity.

    1. The model's SQL is written to a candidate table next to the target.
    2. The gates' verdicts for the candidate (dbt_deid.publish_gate_results). For the discharge
       release they are read from the gate table deid_gate_results, computed once per build,
       after proving that the candidate is the release the gates checked and that the table is
       fresh (dbt_deid.release_publish_results, macros/gates/gate_table.sql); the claims and
       text releases run their gate sets here.
    3. All pass: the candidate replaces the published table (as dbt's table materialization
       does) and a 'published' row is appended to deid_release_history. Any fails: the
       candidate is dropped, the published table stays as it was (the last good release), a
       'refused' row is appended to the history, and the model fails with the gates' messages
       (figures and limits, never quasi-identifier values).

    0. A hook of the project's on the model (`+pre-hook`/`+post-hook`, which dbt would run
       inside this step, a post-hook after the gates) refuses the release before any hook or
       gate runs (dbt_deid.publish_hook_results).

    Config: `deid_checks` names the gate set ('release', 'claims' or 'text'; publish_gate_results).

    A release of several tables (the claims release: patients and claims, seed 001) publishes
    all of them or none. The first table's model has `deid_published_by` (the model that
    publishes it): when its gates pass, its candidate is kept as a staged table
    (`<name>__deid_staged`), nothing is swapped in. The last model has `deid_publish_with` (the
    staged models): its gate set re-runs the staged tables' gates on what was staged (exactly
    the columns and rows the current release gives, so a staged table that differs, left by an
    older run or changed since, is refused) and, when every gate of
    every table passes, swaps all of them in, in one transaction, with one history row per
    table. A refusal at either step drops the candidate and the staged tables, leaves every
    published table as it was and writes a 'refused' row for each table. -#}
{% materialization deid_publish, default %}
  {%- set target_relation = this.incorporate(type='table') -%}
  {%- set existing_relation = load_cached_relation(this) -%}
  {%- set candidate = make_intermediate_relation(target_relation, suffix='__deid_candidate') -%}
  {%- set backup_relation = make_backup_relation(target_relation, 'table' if existing_relation is none else existing_relation.type) -%}
  {%- set grant_config = config.get('grants') -%}
  {{ drop_relation_if_exists(load_cached_relation(candidate)) }}
  {{ drop_relation_if_exists(load_cached_relation(backup_relation)) }}

  {#- a hook of the project's, or a `+sql_header`, runs inside the publish step and could change
      what is published after the gates: refused before any of it runs
      (macros/publish/publish_hook_results.sql). Refused, no hook runs and the candidate is not
      written (the header would run in its create statement): the refusal below (also under
      --empty, so the refused row is written) -#}
  {%- set hooks_refused = dbt_deid.publish_hook_results(pre_hooks, post_hooks, config.get('sql_header')) -%}
  {%- if hooks_refused | length == 0 -%}
    {{ run_hooks(pre_hooks, inside_transaction=False) }}
    {{ run_hooks(pre_hooks, inside_transaction=True) }}

    {#- the engine's settings for the publish step's own transaction, as every other release
        model has them (release_sql_header: PostgreSQL's work_mem and JIT off, set_config(...,
        true), so the session is unchanged after the commit; none on the other engines). Not a
        project's header: the package's own, which changes no value. At PostgreSQL's defaults
        the candidate's join and the proof that it is the checked release
        (published_matches_checked, a GROUP BY of 3.6 million rows at 2.4 million records)
        spilled to disk in 32 partitions and were JIT-compiled (issue 37, session 16). -#}
    {%- set engine_header = dbt_deid.release_sql_header() -%}
    {%- if engine_header -%}{%- do run_query(engine_header) -%}{%- endif %}

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
  {%- endif -%}

  {%- do dbt_deid.assert_no_overrides('model ' ~ this.identifier) -%}
  {%- set checks = config.get('deid_checks') -%}
  {#- the other tables of a multi-table release: [(published relation, staged relation)] -#}
  {%- set parts = dbt_deid.publish_release_parts(target_relation) -%}
  {%- set staged_by = config.get('deid_publish_with') or [] -%}
  {%- if hooks_refused | length > 0 -%}
    {#- no gate runs: the hooks alone refuse the release -#}
    {%- set results = hooks_refused -%}
  {%- else -%}
    {#- under dbt's --sample nothing is published (macros/publish/sample_mode.sql); else the gate set -#}
    {%- set results = dbt_deid.sample_mode_results() or dbt_deid.publish_gate_results(checks, candidate) -%}
    {#- no working table of any release where the published table is shared (macros/publish/working_schema_results.sql) -#}
    {%- do results.extend(dbt_deid.working_schema_results(target_relation)) -%}
    {%- for other, staged in parts if other.identifier in staged_by -%}
      {%- do results.extend(dbt_deid.publish_staged_gate_results(checks, other, staged, candidate)) -%}
    {%- endfor -%}
  {%- endif -%}
  {%- set failed = results | rejectattr('passed') | list -%}
  {%- if failed | length > 0 or results | length == 0 -%}
    {{ drop_relation_if_exists(candidate) }}
    {%- do dbt_deid.record_release(target_relation, 'refused', results, none, checks) -%}
    {%- for other, staged in parts -%}
      {{ drop_relation_if_exists(load_cached_relation(staged) or staged) }}
      {%- do dbt_deid.record_release(other, 'refused', results, none, checks) -%}
    {%- endfor -%}
    {{ adapter.commit() }}
    {{ exceptions.raise_compiler_error("model " ~ this.identifier ~ ": release refused, nothing published" ~ (" (the previous " ~ target_relation ~ " is left as it was)" if existing_relation is not none else "") ~ ". Failed gate(s):\n  " ~ (dbt_deid.gate_failure_message(results) if results else '(no gate ran)') ~ (dbt_deid.release_advice_message() if checks == 'release' else '')) }}
  {%- endif -%}

  {%- if config.get('deid_published_by') -%}
    {#- the first table of a multi-table release: staged; the last table's model swaps it in -#}
    {%- set staged = make_intermediate_relation(target_relation, suffix='__deid_staged') -%}
    {{ drop_relation_if_exists(load_cached_relation(staged) or staged) }}
    {{ adapter.rename_relation(candidate, staged) }}
    {{ adapter.commit() }}
    {%- do log("dbt_deid: " ~ this.identifier ~ ": " ~ results | length ~ " gates passed" ~ dbt_deid.gate_set_note(results) ~ "; staged, published together with " ~ config.get('deid_published_by') ~ " (nothing is published until it runs)", info=true) -%}
    {{ return({'relations': [staged]}) }}
  {%- endif -%}

  {%- set published_rows = run_query('select count(*) from ' ~ candidate).rows[0][0] -%}
  {%- set swapped = [] -%}
  {%- for other, staged in parts if other.identifier in staged_by -%}
    {%- set other_backup = make_backup_relation(other, 'table') -%}
    {{ drop_relation_if_exists(load_cached_relation(other_backup)) }}
    {%- set other_existing = load_cached_relation(other) -%}
    {%- if other_existing is not none -%}{{ adapter.rename_relation(other_existing, other_backup) }}{%- endif -%}
    {%- do swapped.append((other, run_query('select count(*) from ' ~ staged).rows[0][0], other_backup)) -%}
    {{ adapter.rename_relation(staged, other) }}
  {%- endfor -%}
  {%- if existing_relation is not none -%}
    {%- set existing_relation = load_cached_relation(existing_relation) -%}
    {%- if existing_relation is not none -%}
      {{ adapter.rename_relation(existing_relation, backup_relation) }}
    {%- endif -%}
  {%- endif -%}
  {{ adapter.rename_relation(candidate, target_relation) }}
  {%- for other, rows, other_backup in swapped -%}
    {%- do dbt_deid.record_release(other, 'published', results, rows, checks) -%}
  {%- endfor -%}
  {%- do dbt_deid.record_release(target_relation, 'published', results, published_rows, checks) -%}
  {%- do dbt_deid.publish_record_store(config.get('deid_checks'), target_relation) -%}
  {{ run_hooks(post_hooks, inside_transaction=True) }}
  {%- do apply_grants(target_relation, grant_config, should_revoke=should_revoke(existing_relation, full_refresh_mode=True)) -%}
  {%- do persist_docs(target_relation, model) -%}
  {{ adapter.commit() }}
  {{ drop_relation_if_exists(backup_relation) }}
  {%- for other, rows, other_backup in swapped -%}{{ drop_relation_if_exists(other_backup) }}{%- endfor -%}
  {{ run_hooks(post_hooks, inside_transaction=False) }}
  {%- do log("dbt_deid: " ~ this.identifier ~ ": published " ~ published_rows ~ " rows; " ~ results | length ~ " gates passed" ~ dbt_deid.gate_set_note(results), info=true) -%}
  {{ return({'relations': [target_relation]}) }}
{% endmaterialization %}

{#- The gate results for a publish model's candidate table, by gate set. -#}
{% macro publish_gate_results(checks, candidate) -%}
  {{ return(dbt_deid.own(adapter.dispatch('publish_gate_results', 'dbt_deid'))(checks, candidate)) }}
{%- endmacro %}

{% macro default__publish_gate_results(checks, candidate) -%}
  {%- if checks == 'release' -%}
    {{ return(dbt_deid.release_publish_results(dbt_deid.release_config(), candidate)) }}
  {%- elif checks == 'claims' -%}
    {{ return(dbt_deid.claims_publish_gate_results(dbt_deid.claims_release_config(), config.get('deid_claims_table'), candidate)) }}
  {%- elif checks == 'text' -%}
    {{ return(dbt_deid.text_publish_gate_results(dbt_deid.text_release_config(), candidate)) }}
  {%- endif -%}
  {{ exceptions.raise_compiler_error("model " ~ this.identifier ~ ": config deid_checks must name the gate set of the publish materialization ('release', 'claims' or 'text'), got " ~ checks) }}
{%- endmacro %}

{#- The other tables of a multi-table release (config deid_publish_with on the last model,
    deid_published_by on the staged ones): [(published relation, staged relation)], next to
    the target. -#}
{% macro publish_release_parts(target_relation) -%}
  {%- set names = (config.get('deid_publish_with') or []) + ([config.get('deid_published_by')] if config.get('deid_published_by') else []) -%}
  {%- set out = [] -%}
  {%- for name in names -%}
    {%- set other = api.Relation.create(database=target_relation.database, schema=target_relation.schema, identifier=name, type='table') -%}
    {%- do out.append((other, make_intermediate_relation(other, suffix='__deid_staged'))) -%}
  {%- endfor -%}
  {{ return(out) }}
{%- endmacro %}

{#- The gates of a staged table of the release (`other`, staged as `staged`), checked by the
    model that publishes it together with its own `candidate`. -#}
{% macro publish_staged_gate_results(checks, other, staged, candidate) -%}
  {%- if checks == 'claims' -%}
    {{ return(dbt_deid.claims_staged_gate_results(dbt_deid.claims_release_config(), other, staged, candidate)) }}
  {%- endif -%}
  {{ exceptions.raise_compiler_error("model " ~ this.identifier ~ ": gate set " ~ checks ~ " publishes one table (config deid_publish_with is for the claims release)") }}
{%- endmacro %}

{#- After a release is published: its records go to the per-record store the combined_releases
    gate reads (macros/gates/combined_releases.sql), in the same transaction as the swap. A
    discharge release's records are written by record_release, just before its history row,
    which records their fingerprint (review 19, F2); nothing is left to write here. -#}
{% macro publish_record_store(checks, target_relation) -%}
  {{ return(dbt_deid.own(adapter.dispatch('publish_record_store', 'dbt_deid'))(checks, target_relation)) }}
{%- endmacro %}

{% macro default__publish_record_store(checks, target_relation) -%}
{%- endmacro %}

{#- The id of a release attempt (history column release_id). -#}
{% macro release_id(target_relation, status) -%}
  {{ return(local_md5(invocation_id ~ '|' ~ target_relation ~ '|' ~ status)[:16]) }}
{%- endmacro %}

{#- Append one row, the release manifest, to deid_release_history (created when absent, next to
    the published table; columns added by a newer package version are added to an older table).
    The history is managed here, not by an incremental model: the row must be written by the same
    materialization that swaps the table in or refuses it (a refused release raises, so a model
    downstream of it would never run, and `dbt run -s deid_published` would not select it), and a
    table no dbt node owns is never dropped or rebuilt by `--full-refresh`. Nothing here deletes
    or updates a row. The settings are var('deid_release') as JSON: no secret is ever a setting
    (the claims key is read from the environment, key_env). No quasi-identifier value is written:
    fingerprints are hashes over whole tables, figures are counts and risks. -#}
{% macro record_release(target_relation, status, results, published_rows, kind='release') -%}
  {{ return(dbt_deid.own(adapter.dispatch('record_release', 'dbt_deid'))(target_relation, status, results, published_rows, kind)) }}
{%- endmacro %}

{#- The history's columns, in order, with their types. -#}
{% macro release_history_columns() -%}
  {%- set s = dbt.type_string() -%}{%- set b = dbt.type_bigint() -%}{%- set f = dbt_deid.type_double() -%}
  {{ return([
    ('release_name', s), ('published_relation', s), ('status', s), ('invocation_id', s),
    ('recorded_at', s), ('published_rows', b), ('settings_md5', s), ('gates_passed', s), ('gates_failed', s),
    ('release_id', s), ('release_version', b), ('package_version', s), ('invocation_started_at', s),
    ('settings_json', s), ('input_relation', s), ('input_columns', s), ('input_rows', b), ('input_hash', s),
    ('published_hash', s), ('k', b), ('tau', f), ('max_suppression', f),
    ('achieved_json', s), ('information_loss_json', s), ('gates_json', s), ('lineage_json', s),
    ('records_shared', b), ('combined_min_consistent', b), ('released_levels_json', s),
    ('release_kind', s), ('line_json', s), ('hierarchy_values', b)
  ]) }}
{%- endmacro %}

{#- The package version (dbt_project.yml and pyproject.toml; a unit test keeps the three equal). -#}
{% macro package_version() -%}{{ return('0.3.0') }}{%- endmacro %}

{% macro default__record_release(target_relation, status, results, published_rows, kind='release') -%}
  {%- set history = api.Relation.create(database=target_relation.database, schema=target_relation.schema, identifier='deid_release_history', type='table') -%}
  {%- set columns = dbt_deid.release_history_columns() -%}
  {#- ensure_release_history creates the table with `if not exists`: a second row in the same
      model (the tables of a claims release) finds the table this model created, which the
      relation cache does not list yet -#}
  {%- do dbt_deid.ensure_release_history(history) -%}
  {%- if kind in ['claims', 'text'] -%}
    {%- set m = dbt_deid.kind_release_manifest(kind, target_relation, status, results, published_rows, history) -%}
  {%- else -%}
    {%- set m = dbt_deid.release_manifest(target_relation, status, results, published_rows, history) -%}
    {%- do m.update({'release_kind': 'discharge'}) -%}
    {%- if status == 'published' -%}
      {#- the hierarchy mapping it released, written once from the checked release; the history
          counts what was written (macros/publish/released_hierarchies.sql) -#}
      {%- do m.update({'hierarchy_values': dbt_deid.record_released_hierarchies(dbt_deid.release_config(), dbt_deid.checked_release(),
          m.release_id, m.release_version)}) -%}
      {#- its records to the per-record store, and the fingerprints of what was written into
          the history row (line_json's store_check and hierarchy_check), so every later build
          sees a stored row edited by hand (review 19, F2; macros/gates/stored_rows_check.sql) -#}
      {%- set line = fromjson(m.line_json) -%}
      {%- do line.update({'store_check': dbt_deid.record_release_records(dbt_deid.release_config(), dbt_deid.checked_release(), target_relation,
          m.release_id, m.release_version)}) -%}
      {%- if m.hierarchy_values is not none -%}
        {%- set pairs = dbt_deid.released_hierarchies_columns() -%}
        {%- do line.update({'hierarchy_check': dbt_deid.stored_rows_check(dbt_deid.released_hierarchies_relation(dbt_deid.checked_release()),
            pairs[3:], m.release_id, pairs[:3])}) -%}
      {%- endif -%}
      {%- do m.update({'line_json': tojson(line, sort_keys=true)}) -%}
    {%- endif -%}
  {%- endif -%}
  {#- a published claims or text version: a copy of its row in the kind's line record too (its
      working schema), so the line follows a published table moved to another schema
      (macros/gates/kind_line.sql, kind_line_record_relation; review 9, G2) -#}
  {%- set into = [history] -%}
  {%- if kind in ['claims', 'text'] and status == 'published' -%}
    {%- set record = dbt_deid.kind_line_record_relation(kind) -%}
    {%- if record is not none and (record | string) != (history | string) -%}
      {%- do dbt_deid.ensure_release_history(record) -%}
      {%- do into.append(record) -%}
    {%- endif -%}
  {%- endif -%}
  {%- for h in into -%}
  {% call statement('deid_history_insert' ~ ('' if loop.first else '_line')) -%}
    insert into {{ h }} ({{ columns | map(attribute=0) | join(', ') }}) values (
      {%- for name, type in columns %}
      {{ 'null' if m.get(name) is none else (m[name] if type != dbt.type_string() else dbt_deid.literal(m[name])) }}{{ ',' if not loop.last }}
      {%- endfor %}
    )
  {%- endcall %}
  {%- endfor -%}
{%- endmacro %}

{#- The manifest of one release attempt as a dict of history columns. -#}
{% macro release_manifest(target_relation, status, results, published_rows, history) -%}
  {%- set release = dbt_deid.release_settings() or {} -%}
  {%- set cfg = dbt_deid.release_config() -%}
  {%- set name = release.get('name', 'release') -%}
  {%- set settings_json = tojson(release, sort_keys=true) -%}
  {%- set passed = results | selectattr('passed') | map(attribute='gate') | list -%}
  {%- set failed = results | rejectattr('passed') | map(attribute='gate') | list -%}
  {%- set gates = [] -%}
  {%- for r in results -%}
    {%- do gates.append({'gate': r.gate, 'passed': r.passed, 'failures': r.get('failures'), 'message': r.get('message')}) -%}
  {%- endfor -%}
  {%- set combined = results | selectattr('gate', 'equalto', 'combined_releases') | list -%}
  {#- the figures only when bound to the gate table this step read (history_figures), else empty -#}
  {%- set figures = results | selectattr('gate', 'equalto', 'history_figures') | selectattr('passed') | list -%}
  {%- set limits = dbt_deid.computed_release_limits(cfg) -%}
  {%- set src = dbt_deid.release_source(cfg) -%}
  {%- set input_columns = dbt_deid.released_source_columns(cfg) -%}
  {#- the publish step fingerprinted the input to check the gate table (release_publish_results) -#}
  {%- set fins = results | selectattr('gate', 'equalto', 'gate_table') | selectattr('input_fingerprint', 'defined') | map(attribute='input_fingerprint') | list -%}
  {%- set fin = fins[0] if fins else dbt_deid.table_fingerprint(src, input_columns) -%}
  {%- set version = none -%}
  {%- set published_hash = none -%}
  {%- if status == 'published' -%}
    {%- set fout = dbt_deid.table_fingerprint(target_relation) -%}
    {%- set published_hash = fout.hash -%}
    {%- set prior = run_query("select count(*) from " ~ history ~ " where " ~ dbt_deid.history_version_condition(history, target_relation, name)).rows[0][0] -%}
    {%- set version = prior + 1 -%}
  {%- endif -%}
  {%- set line = dbt_deid.line_manifest(combined[0] if combined else {}, release) -%}
  {%- if status == 'published' -%}
    {#- the published rows the history held for this table before this one, every name: a
        later gate refuses when it holds fewer (rows deleted; orphaned_publication_problems) -#}
    {%- do line.update({'relation_versions_before': dbt_deid.published_versions_of(history, target_relation) | selectattr('this_table') | list | length}) -%}
  {%- endif -%}
  {{ return({
    'release_id': dbt_deid.release_id(target_relation, status),
    'release_name': name, 'release_version': version, 'published_relation': target_relation | string,
    'status': status, 'invocation_id': invocation_id, 'invocation_started_at': run_started_at.strftime('%Y-%m-%dT%H:%M:%SZ'),
    'recorded_at': modules.datetime.datetime.utcnow().strftime('%Y-%m-%dT%H:%M:%SZ'),
    'package_version': dbt_deid.package_version(),
    'published_rows': published_rows, 'settings_json': settings_json, 'settings_md5': local_md5(settings_json),
    'gates_passed': passed | join(', '), 'gates_failed': failed | join(', '), 'gates_json': tojson(gates),
    'input_relation': src | string, 'input_columns': input_columns | join(', '), 'input_rows': fin.rows, 'input_hash': fin.hash,
    'published_hash': published_hash, 'k': limits.k, 'tau': limits.tau, 'max_suppression': limits.max_suppression,
    'achieved_json': tojson(figures[0].achieved) if figures else none,
    'information_loss_json': tojson(figures[0].information_loss) if figures else none,
    'lineage_json': tojson(dbt_deid.published_lineage(cfg)),
    'records_shared': combined[0].records_shared if combined else none,
    'combined_min_consistent': combined[0].combined_min if combined else none,
    'released_levels_json': tojson(dbt_deid.released_level_specs(cfg), sort_keys=true),
    'line_json': tojson(line, sort_keys=true)
  }) }}
{%- endmacro %}

{#- The manifest of one claims (seed 001) or text (seed 004) release attempt, as a dict of
    history columns (the columns a kind does not have stay null): the settings are the kind's
    var (deid_claims_release / deid_text_release) as JSON; the claims pseudonym key is never a
    setting (key_env names the environment variable). The input fingerprint covers every
    column of the table's input (claims: the patients or claims table; text: the documents),
    the achieved figures are the rows of the kind's gate model (deid_claims_release_gate: node
    risk, attack 1, marketer risk; deid_text_release_gate: the direct and quasi-identifier risk
    and the benchmark), and each gate's result carries its figure and limit. line_json is the
    table's line (gate <table>_line: the epoch, the `restart` reason, the version it extends and
    whether it is identical to it). -#}
{% macro kind_release_manifest(kind, target_relation, status, results, published_rows, history) -%}
  {%- if kind == 'claims' -%}
    {%- set release = var('deid_claims_release', {}) -%}
    {%- set cfg = dbt_deid.claims_release_config() -%}
    {#- the table's role from its line result (the patients table is gated by the claims model),
        else the model's deid_claims_table config: never from the (aliasable) identifier -#}
    {%- set line = results | selectattr('line', 'defined') | selectattr('published_relation', 'equalto', dbt_deid.kind_line_relation_key(target_relation.include(database=false))) | list -%}
    {%- set own = config.get('deid_claims_table') -%}
    {%- set table = line[0].line.table if line else (own if target_relation.identifier == this.identifier else ('patients' if own == 'claims' else 'claims')) -%}
    {%- set src = dbt_deid.claims_relation(cfg.claims if table == 'claims' else cfg.patients) -%}
    {%- set gate = ref('dbt_deid', 'deid_claims_release_gate') -%}
    {%- set figures = "select measure, node, value, " ~ adapter.quote('limit') ~ ", passed from " ~ gate ~ " order by measure" -%}
    {%- set limits = {'tau': cfg.tau, 'max_suppression': cfg.max_suppression} -%}
  {%- else -%}
    {%- set release = var('deid_text_release', {}) -%}
    {%- set cfg = dbt_deid.text_release_config() -%}
    {%- set src = dbt_deid.text_input_relation(cfg, 'documents') -%}
    {%- set gate = ref('dbt_deid', 'deid_text_release_gate') -%}
    {%- set figures = "select measure, point, upper, " ~ adapter.quote('limit') ~ ", passed from " ~ gate ~ " order by measure" -%}
    {%- set limits = {'tau': cfg.tau, 'max_suppression': none} -%}
  {%- endif -%}
  {%- set name = release.get('name', kind) -%}
  {%- set settings_json = tojson(release, sort_keys=true) -%}
  {%- set gates = [] -%}
  {%- for r in results -%}
    {%- do gates.append({'gate': r.gate, 'passed': r.passed, 'failures': r.get('failures'), 'figure': r.get('figure'), 'limit': r.get('limit'), 'message': r.get('message')}) -%}
  {%- endfor -%}
  {%- set achieved = [] -%}
  {%- if adapter.get_relation(gate.database, gate.schema, gate.identifier) is not none -%}
    {%- set t = run_query(figures) -%}
    {%- for r in t.rows -%}
      {%- do achieved.append({'measure': r[0], ('node' if kind == 'claims' else 'point'): (r[1] if kind == 'claims' else dbt_deid._json_number(r[1])),
          ('value' if kind == 'claims' else 'upper_95'): dbt_deid._json_number(r[2]), 'limit': dbt_deid._json_number(r[3]),
          'passed': none if r[4] is none else (r[4] in [true, 1, 'true', 'True'])}) -%}
    {%- endfor -%}
  {%- endif -%}
  {%- set input_columns = adapter.get_columns_in_relation(src) | map(attribute='name') | list -%}
  {%- set fin = dbt_deid.table_fingerprint(src, input_columns) -%}
  {#- the line of this table (gate <table>_line, macros/gates/kind_line.sql) -#}
  {%- set line = results | selectattr('line', 'defined') | selectattr('published_relation', 'equalto', dbt_deid.kind_line_relation_key(target_relation.include(database=false))) | list -%}
  {%- set version = none -%}{%- set published_hash = none -%}
  {%- if status == 'published' -%}
    {%- set published_hash = dbt_deid.table_fingerprint(target_relation).hash -%}
    {%- set prior = run_query("select count(*) from " ~ history ~ " where " ~ dbt_deid.history_version_condition(history, target_relation, name)).rows[0][0] -%}
    {%- set version = prior + 1 -%}
  {%- endif -%}
  {{ return({
    'release_kind': kind, 'release_id': dbt_deid.release_id(target_relation, status),
    'release_name': name, 'release_version': version, 'published_relation': target_relation | string,
    'status': status, 'invocation_id': invocation_id, 'invocation_started_at': run_started_at.strftime('%Y-%m-%dT%H:%M:%SZ'),
    'recorded_at': modules.datetime.datetime.utcnow().strftime('%Y-%m-%dT%H:%M:%SZ'),
    'package_version': dbt_deid.package_version(),
    'published_rows': published_rows, 'settings_json': settings_json, 'settings_md5': local_md5(settings_json),
    'gates_passed': results | selectattr('passed') | map(attribute='gate') | join(', '),
    'gates_failed': results | rejectattr('passed') | map(attribute='gate') | join(', '), 'gates_json': tojson(gates),
    'input_relation': src | string, 'input_columns': input_columns | join(', '), 'input_rows': fin.rows, 'input_hash': fin.hash,
    'published_hash': published_hash, 'tau': limits.tau, 'max_suppression': limits.max_suppression,
    'achieved_json': tojson(achieved), 'line_json': tojson(line[0].line, sort_keys=true) if line else none
  }) }}
{%- endmacro %}

{#- The record id and the source columns whose values are released (quasi-identifiers and
    pass-through), in the source's order: what the input fingerprint covers (the record id
    decides ties, so it changes what is published). -#}
{% macro released_source_columns(cfg) -%}
  {%- set roles = dbt_deid._role_of_columns(cfg) -%}
  {%- set out = [] -%}
  {%- for col in adapter.get_columns_in_relation(dbt_deid.release_source(cfg)) -%}
    {%- set role = roles.get(col.name | lower, '') -%}
    {%- if role in ['record_id', 'pass_through', 'sensitive'] or role.startswith('quasi_identifiers.') -%}{%- do out.append(col.name) -%}{%- endif -%}
  {%- endfor -%}
  {{ return(out) }}
{%- endmacro %}

{#- Published column -> the source column(s) it derives from and their role, by construction of
    publish_sql (the sqlglot check, `python -m dbt_deid lineage`, verifies the compiled SQL). -#}
{% macro published_lineage(cfg) -%}
  {%- set by_name = {} -%}
  {%- for q in cfg.qis -%}{%- do by_name.update({q.name: q.column}) -%}{%- endfor -%}
  {%- set out = [] -%}
  {%- for kind, name in dbt_deid._published_items(cfg) -%}
    {%- if kind == 'qi' -%}
      {%- do out.append({'column': name, 'sources': [by_name[name]], 'role': 'quasi_identifier', 'level': 'released'}) -%}
    {%- else -%}
      {%- do out.append({'column': name, 'sources': [name], 'role': 'sensitive' if name | lower in cfg.sensitive | map('lower') | list else 'pass_through'}) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(out) }}
{%- endmacro %}

{#- The achieved figures per verified combination (deid_diagnostics' risk_summary rows, stage
    'published'); read by history_figures_result only once the table is proven to be the gate
    table's build. -#}
{% macro achieved_figures() -%}
  {%- set rel = dbt_deid.release_ref('deid_diagnostics') -%}
  {%- if adapter.get_relation(rel.database, rel.schema, rel.identifier) is none -%}{{ return([]) }}{%- endif -%}
  {%- set t = run_query("select combination, smallest_class, min_consistent_exact, max_risk, mean_risk, records_above_tau, records from " ~ rel ~ " where diagnostic = 'risk_summary' and stage = 'published' order by combination") -%}
  {%- set out = [] -%}
  {%- for r in t.rows -%}
    {#- numbers through int/float: some drivers (PostgreSQL) return Decimal, which tojson refuses -#}
    {%- do out.append({'combination': r[0], 'smallest_class': dbt_deid._json_number(r[1], true),
                       'min_consistent_exact': dbt_deid._json_number(r[2], true),
                       'max_risk': dbt_deid._json_number(r[3]), 'mean_risk': dbt_deid._json_number(r[4]),
                       'records_above_tau': dbt_deid._json_number(r[5], true), 'records': dbt_deid._json_number(r[6], true)}) -%}
  {%- endfor -%}
  {{ return(out) }}
{%- endmacro %}

{#- The information loss headline (deid_diagnostics' information_loss rows, the all-QI row). -#}
{% macro information_loss_headline() -%}
  {%- set rel = dbt_deid.release_ref('deid_diagnostics') -%}
  {%- set found = adapter.get_relation(rel.database, rel.schema, rel.identifier) -%}
  {%- if found is none or 'non_uniform_entropy' not in (adapter.get_columns_in_relation(found) | map(attribute='name') | map('lower') | list) -%}{{ return({}) }}{%- endif -%}
  {%- set t = run_query("select suppressed_cells, share_cells_suppressed, records_with_suppression, share_records_with_suppression, non_uniform_entropy, precision from " ~ rel ~ " where diagnostic = 'information_loss' and column_order = 0") -%}
  {%- if t.rows | length == 0 -%}{{ return({}) }}{%- endif -%}
  {%- set r = t.rows[0] -%}
  {{ return({'suppressed_cells': dbt_deid._json_number(r[0], true), 'share_cells_suppressed': dbt_deid._json_number(r[1]),
             'records_with_suppression': dbt_deid._json_number(r[2], true),
             'share_records_with_suppression': dbt_deid._json_number(r[3]), 'non_uniform_entropy': dbt_deid._json_number(r[4]),
             'precision': dbt_deid._json_number(r[5])}) }}
{%- endmacro %}

{#- A query result as a JSON-safe number (int when `integer`, else float; none stays none). -#}
{% macro _json_number(value, integer=false) -%}
  {%- if value is none -%}{{ return(none) }}{%- endif -%}
  {{ return((value | int) if integer else (value | float)) }}
{%- endmacro %}
