{#- The line of a claims (seed 001) or text (seed 004) release (issue 32: a release that lives;
    everything a recipient has ever received, combined per record, must stay protected).

    The discharge release keeps a per-record store and combines each new version with every
    earlier one (combined_releases.sql). The claims and text releases keep no store, and their
    versions cannot be combined by the gates yet: the claims pseudonyms are a keyed HMAC of the
    member id (stable from version to version, so a recipient links two versions patient by
    patient and combines their cells, and the union of a patient's claims is a longitudinal
    record LOLA never assessed: El Emam et al. 2012 evaluate the risk of one release), and the
    text documents keep their ids and are linkable by content anyway. So a later version of a
    line fails closed (gate `<table>_line`): it is published only when

    * it is identical to the line's latest published version (the same published fingerprint:
      an idempotent rebuild reveals nothing new), or
    * every row of it is a row of that version, multiplicity counted (rows_not_in_sql, which
      every engine runs: records deleted, nothing changed or added; the published table, or,
      when it moved, the table that version was published as, must still be that version, by
      its fingerprint), so the versions combined are that version,
      which passed its gates (by induction every version of a line is then a subset of the
      line's first version), or
    * the line is started over explicitly with `restart: {reason: ...}` in the kind's var (the
      reason is in the history's settings_json and line_json; a new reason starts a new line,
      the same reason keeps the restarted line, going back to an earlier reason is refused).

    A project has one claims release and one text release (one var each), so the line of a
    table is every published version of the kind in the history (for claims, of the same table
    role: patients or claims, from line_json's table, or for rows written before line_json from
    the published or input relation; a row whose role cannot be told belongs to both lines),
    whatever its published table, source or release name: another name, a renamed upstream
    model or a moved published table (+alias, or another schema: +schema, a
    generate_schema_name) does not start over: the line is read from every history the project
    writes (kind_line_histories: the one next to the published table, the kind's line record
    in its working schema, and the history in the schema of every publish model of the graph;
    review 9, G2). The line's latest version is
    the newest row whose published fingerprint is the published table's (client clocks may
    disagree), else the newest by recorded_at, then version. Only a new non-empty `restart`
    reason starts a new line: removing the setting, or going back to an earlier reason, is
    refused. A published table that exists with rows while the history records no published
    version of the kind (history deleted or dropped) is refused too, whatever the epoch (a
    `restart` kept in the vars excused it until session 8): archive or drop the table, then
    restart. Figures only: fingerprints and version numbers, never a value. -#}

{#- `schema.identifier` of a relation or its string, lower case, without quotes or catalog. -#}
{% macro kind_line_relation_key(relation) -%}
  {%- set parts = (relation | string | replace('"', '') | replace('`', '') | lower).split('.') -%}
  {{ return(parts[-2:] | join('.')) }}
{%- endmacro %}

{#- The line epoch of a kind's settings: '' until restarted, then md5(restart.reason)[:16]. -#}
{% macro kind_line_epoch(settings) -%}
  {%- set restart = settings.get('restart') if settings is mapping else none -%}
  {%- if restart is mapping and restart.get('reason') -%}{{ return(local_md5(restart.reason | string)[:16]) }}{%- endif -%}
  {{ return('') }}
{%- endmacro %}

{#- The table role (patients, claims or documents) of a published history row of `kind`:
    line_json's table; for rows written before line_json, the table whose published or input
    relation it is (`keys`: {table: [published key, input key]}), then the package's published
    model names; none when it cannot be told (the row then belongs to every line of the kind). -#}
{% macro kind_line_row_table(kind, line_json, published_relation, input_relation, keys) -%}
  {%- if kind != 'claims' -%}{{ return('documents') }}{%- endif -%}
  {%- set line = fromjson(line_json) if line_json else {} -%}
  {%- if line is mapping and line.get('table') -%}{{ return(line.table) }}{%- endif -%}
  {%- set published = dbt_deid.kind_line_relation_key(published_relation) -%}
  {%- set input = dbt_deid.kind_line_relation_key(input_relation) if input_relation else none -%}
  {%- for t, k in keys.items() -%}
    {%- if published == k[0] -%}{{ return(t) }}{%- endif -%}
  {%- endfor -%}
  {%- for t in ['patients', 'claims'] -%}
    {%- if published.split('.')[-1] == 'deid_claims_published_' ~ t -%}{{ return(t) }}{%- endif -%}
  {%- endfor -%}
  {%- for t, k in keys.items() -%}
    {%- if input == k[1] -%}{{ return(t) }}{%- endif -%}
  {%- endfor -%}
  {{ return(none) }}
{%- endmacro %}

{#- The line record of a claims or text release: deid_<kind>_line_history, in the kind's working
    schema (next to deid_claims_release_gate or deid_text_release_gate), with the columns of
    deid_release_history; the publish materialization appends a copy of every 'published'
    history row of the kind to it (record_release), so the line is found wherever the published
    tables moved (review 9, G2: a `+schema` on the publish models made the next build "version
    1" of a new line). Figures only, as the history. None when the kind's gate model is not in
    the graph. -#}
{% macro kind_line_record_relation(kind) -%}
  {%- set gate = dbt_deid._graph_relation('deid_claims_release_gate' if kind == 'claims' else 'deid_text_release_gate') -%}
  {%- if gate is none -%}{{ return(none) }}{%- endif -%}
  {{ return(api.Relation.create(database=gate.database, schema=gate.schema, identifier='deid_' ~ kind ~ '_line_history', type='table')) }}
{%- endmacro %}

{#- The histories the line of `kind` is read from, those that exist, deduplicated: the release
    history next to the published relation `target`, the kind's line record
    (kind_line_record_relation) and the release history in the schema of every publish model of
    the graph (any kind, whatever its materialization was overridden to: is_publish_node). A
    published version recorded in any of them is a version of the line. -#}
{% macro kind_line_histories(kind, target) -%}
  {%- set wanted = [api.Relation.create(database=target.database, schema=target.schema, identifier='deid_release_history', type='table')] -%}
  {%- set record = dbt_deid.kind_line_record_relation(kind) -%}
  {%- if record is not none -%}{%- do wanted.append(record) -%}{%- endif -%}
  {%- for node in graph.nodes.values() if dbt_deid.is_publish_node(node) -%}
    {%- do wanted.append(api.Relation.create(database=node.database, schema=node.schema, identifier='deid_release_history', type='table')) -%}
  {%- endfor -%}
  {%- set out = [] -%}{%- set seen = [] -%}
  {%- for h in wanted -%}
    {%- set key = (h | string | replace('"', '') | replace('`', '') | lower) -%}
    {%- if key not in seen -%}
      {%- do seen.append(key) -%}
      {%- if adapter.get_relation(h.database, h.schema, h.identifier) is not none -%}{%- do out.append(h) -%}{%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(out) }}
{%- endmacro %}

{#- The gate result of the line of one table of a claims or text release: `kind` ('claims' or
    'text'), `table` (patients, claims or documents), `candidate` (the table about to be
    published: the candidate or the staged table), `target` (the published relation it
    replaces) and `source` (the table's input relation). The result carries `line` (the
    history's line_json) and `published_relation`. -#}
{% macro kind_line_gate_result(kind, table, candidate, target, source) -%}
  {{ return(dbt_deid.own(adapter.dispatch('kind_line_gate_result', 'dbt_deid'))(kind, table, candidate, target, source)) }}
{%- endmacro %}

{% macro default__kind_line_gate_result(kind, table, candidate, target, source) -%}
  {%- set settings = var('deid_claims_release' if kind == 'claims' else 'deid_text_release', {}) -%}
  {%- set var_name = 'deid_claims_release' if kind == 'claims' else 'deid_text_release' -%}
  {%- set name = settings.get('name', kind ~ '_release') -%}
  {%- set epoch = dbt_deid.kind_line_epoch(settings) -%}
  {%- set restart = settings.get('restart') -%}
  {%- set reason = restart.get('reason') if restart is mapping else none -%}
  {%- set gate = (table if kind == 'claims' else 'text') ~ '_line' -%}
  {%- set target_key = dbt_deid.kind_line_relation_key(target.include(database=false)) -%}
  {%- set source_key = dbt_deid.kind_line_relation_key(source) -%}
  {%- set line = {'release_name': name, 'kind': kind, 'table': table, 'epoch': epoch, 'source': source_key,
                  'published_table': target_key, 'restart_reason': reason, 'extends_version': none,
                  'extends_release': none, 'identical_to_extended': none} -%}
  {%- set out = {'gate': gate, 'passed': true, 'failures': 0, 'figure': none, 'limit': none,
                 'published_relation': target_key, 'line': line} -%}
  {%- set history = api.Relation.create(database=target.database, schema=target.schema, identifier='deid_release_history', type='table') -%}
  {#- every history the line may be recorded in, not only the one next to the published table:
      a published table moved to another schema (+schema, generate_schema_name) is the same
      line (review 9, G2) -#}
  {%- set histories = dbt_deid.kind_line_histories(kind, target) -%}
  {%- set rows = [] -%}
  {%- set reads = [] -%}
  {%- set own_key = (history | string | replace('"', '') | replace('`', '') | lower) -%}
  {%- set own_old = [] -%}
  {%- for h in histories -%}
    {%- set read = dbt_deid.kind_line_history_columns(h) -%}
    {%- set own = (h | string | replace('"', '') | replace('`', '') | lower) == own_key -%}
    {%- if read is not string -%}
      {%- do reads.append("select " ~ read | join(', ') ~ " from " ~ h) -%}
    {%- elif not own and h.identifier == 'deid_release_history' and 'release_kind' not in (adapter.get_columns_in_relation(h) | map(attribute='name') | map('lower') | list) -%}
      {#- another schema's history of an older package version, without release_kind: it
          holds no claims or text version (those were first recorded with it), so nothing of
          the line; skipped, the others are read (review 9 final, F2: it ended the gate,
          "started over" under a sticky `restart`, before the line's own rows were read). Not
          the line record: this package version writes it whole -#}
    {%- elif own and epoch != '' -%}
      {#- the history next to the published table older than `restart` holds no earlier
          reason to go back to: the line starts over unless another history records a
          version of it (read below) -#}
      {%- do own_old.append(read) -%}
    {%- else -%}
      {%- do out.update({'passed': false, 'failures': 1, 'message': "release line '" ~ name ~ "' (" ~ kind ~ ' release, ' ~ target_key ~ '): ' ~ read ~ '; nothing is published' ~ (', the published table stays' if adapter.get_relation(target.database, target.schema, target.identifier) is not none else '') ~ ('. Start the line over explicitly with the setting `restart: {reason: ...}` in ' ~ var_name ~ ' (audited: written into the history, which is then given the columns of this package version)' if own
          else ': it records release kinds, so it may hold versions of the line; restore its columns (a `restart` does not excuse it)')}) -%}
      {{ return(out) }}
    {%- endif -%}
  {%- endfor -%}
  {%- if reads -%}
    {#- the line record holds copies of the histories' rows: one row per published version
        (name, version, fingerprint, relation), the first by recorded_at (a copy can differ
        from its history row where the history was edited or is of an older package version:
        no line_json, another recorded_at) -#}
    {%- set versions_seen = [] -%}
    {%- set t = run_query("select distinct release_name, release_version, published_relation, input_relation, settings_json, published_hash, recorded_at, line_json from (" ~ reads | join(' union all ') ~ ") as h"
        ~ " where status = 'published' and release_kind = " ~ dbt_deid.literal(kind) ~ " and release_version is not null order by recorded_at, release_version") -%}
    {%- for r in t.rows -%}
      {%- set version_key = [r[0], r[1], r[5], dbt_deid.kind_line_relation_key(r[2])] | join('|') -%}
      {%- set role = dbt_deid.kind_line_row_table(kind, r[7], r[2], r[3], {table: [target_key, source_key]}) -%}
      {%- if version_key not in versions_seen and (role is none or role == table) -%}
        {%- do versions_seen.append(version_key) -%}
        {%- set row_line = fromjson(r[7]) if r[7] else {} -%}
        {%- do rows.append({'name': r[0], 'version': r[1] | int, 'hash': r[5],
            'epoch': dbt_deid.kind_line_epoch(fromjson(r[4]) if r[4] else {}),
            'table': row_line.get('published_table') if row_line is mapping else none}) -%}
      {%- endif -%}
    {%- endfor -%}
  {%- endif -%}
  {%- set what = "release line '" ~ name ~ "' (" ~ kind ~ ' release, ' ~ ((table ~ ' table ') if kind == 'claims' else '') ~ target_key ~ ' over ' ~ source_key ~ ')' -%}
  {%- set way_out = "Publish only an identical rebuild of the last published version or one that only deletes rows from it, or start the line over explicitly with the setting `restart: {reason: '...'}` in " ~ var_name ~ " (audited: the reason is written into the history; recipients keep what they received)" -%}
  {%- if rows | length == 0 and own_old -%}
    {%- do out.update({'message': "release line '" ~ name ~ "' (" ~ kind ~ ' release, ' ~ target_key ~ "): started over (restart: '" ~ reason ~ "'); " ~ own_old[0]}) -%}
    {{ return(out) }}
  {%- endif -%}
  {%- if rows | length == 0 -%}
    {%- set found = adapter.get_relation(target.database, target.schema, target.identifier) -%}
    {%- set held = run_query('select count(*) from ' ~ found).rows[0][0] | int if found is not none else 0 -%}
    {#- whatever the epoch: a `restart` kept in the vars (removing it is refused) cannot be
        told from a new one once the history is gone (session 8) -#}
    {%- if held > 0 -%}
      {%- do out.update({'passed': false, 'failures': 1, 'figure': held, 'limit': 0,
          'message': what ~ ': the published table holds ' ~ held ~ ' row(s) but the release history ' ~ history ~ ' records no published version of it (nor does any history of the project the line is read from: ' ~ (histories | join(', ') if histories else 'none found') ~ ') (deleted, truncated or dropped history: never a fresh start); nothing is published, the published table stays. Restore the history from a backup; or, to start over on purpose, archive or drop the published table ' ~ target_key ~ ' first (recipients keep what they received) and build with the setting `restart: {reason: ...}` in ' ~ var_name ~ ' (audited: written into the history); a `restart` alone does not excuse it (once the history is gone, a new restart cannot be told from one kept in the vars)'}) -%}
    {%- else -%}
      {%- do out.update({'message': what ~ ': ' ~ ('no earlier published version (version 1 of the line)' if epoch == '' else "started over (restart: '" ~ reason ~ "')")}) -%}
    {%- endif -%}
    {{ return(out) }}
  {%- endif -%}
  {#- the latest version: the newest whose fingerprint is the published table's (client clocks
      may disagree), else the newest by recorded_at, then version -#}
  {%- set newest = rows | last -%}
  {%- set found = adapter.get_relation(target.database, target.schema, target.identifier) -%}
  {%- set published_hash = dbt_deid.table_fingerprint(found).hash if found is not none else none -%}
  {%- set same = rows | selectattr('hash', 'equalto', published_hash) | list if published_hash else [] -%}
  {%- set latest = same | last if same else newest -%}
  {%- set epochs = rows | map(attribute='epoch') | unique | list -%}
  {%- set versions = [dbt_deid.kind_line_versions(rows)] -%}
  {%- if epoch != newest.epoch or epoch != latest.epoch -%}
    {#- only a new non-empty reason starts a line: removing `restart` or going back is refused -#}
    {%- if epoch == '' -%}
      {%- do out.update({'passed': false, 'failures': 1,
          'message': what ~ ' has published ' ~ versions[0] ~ '; the setting `restart` was removed, but the latest version (' ~ newest.name ~ ' version ' ~ newest.version ~ ') was published under a `restart` reason (line epoch ' ~ newest.epoch ~ ', the reason is in the history): removing the setting starts no new line; nothing is published, that version stays. Keep the `restart` setting of the latest version, or start the line over with a new reason'}) -%}
    {%- elif epoch in epochs -%}
      {%- do out.update({'passed': false, 'failures': 1,
          'message': what ~ ': the line was started over (setting `restart`) after the versions of this setting (' ~ versions[0] ~ '), or the published table is not its latest version; nothing is published, the last published version (' ~ newest.name ~ ' version ' ~ newest.version ~ ') stays. Keep the `restart` setting of the latest version, or start the line over with a new reason'}) -%}
    {%- else -%}
      {%- do out.update({'message': what ~ ": started over (restart: '" ~ reason ~ "') after " ~ versions[0]}) -%}
    {%- endif -%}
    {{ return(out) }}
  {%- endif -%}
  {%- set fp = dbt_deid.table_fingerprint(candidate) -%}
  {%- do line.update({'extends_version': latest.version, 'extends_release': latest.name, 'identical_to_extended': fp.hash == latest.hash}) -%}
  {#- the published table moved (another schema or name): the latest version where it was
      published, when it is still that version (its fingerprint) -#}
  {%- set was = found -%}{%- set was_hash = published_hash -%}
  {%- if published_hash != latest.hash and fp.hash != latest.hash and latest.table and latest.table.split('.') | length == 2 -%}
    {%- set old = adapter.get_relation(target.database, latest.table.split('.')[0], latest.table.split('.')[1]) -%}
    {%- if old is not none -%}{%- set was = old -%}{%- set was_hash = dbt_deid.table_fingerprint(old).hash -%}{%- endif -%}
  {%- endif -%}
  {%- set extra = dbt_deid.kind_line_rows_not_in(candidate, was, was_hash, latest.hash) if fp.hash != latest.hash else 0 -%}
  {%- do line.update({'rows_not_in_extended': extra}) -%}
  {%- if fp.hash == latest.hash -%}
    {%- do out.update({'figure': 0, 'limit': 0, 'message': what ~ ': identical to the published version ' ~ latest.version ~ ' of ' ~ latest.name ~ ' (the same fingerprint: nothing new is revealed)'}) -%}
  {%- elif extra == 0 -%}
    {%- do out.update({'figure': 0, 'limit': 0, 'message': what ~ ': every one of its ' ~ fp.rows ~ ' rows is a row of the published version ' ~ latest.version ~ ' of ' ~ latest.name ~ ' (records deleted only: the versions combined are that version, nothing new is revealed)'}) -%}
  {%- else -%}
    {%- set mine = rows | selectattr('epoch', 'equalto', epoch) | list -%}
    {%- do out.update({'passed': false, 'failures': 1, 'figure': fp.rows | int, 'limit': none,
        'message': what ~ ' has published ' ~ dbt_deid.kind_line_versions(mine) ~ '; this build (' ~ fp.rows ~ ' rows) differs from the last published version' ~ (' (' ~ extra ~ ' of its rows are not rows of it)' if extra is number and extra > 0 else '') ~ ', and ' ~ kind ~ ' versions cannot be combined by the gates yet ('
          ~ ('recipients link them by the stable pseudonyms, patient by patient, and would hold every cell and claim either version revealed' if kind == 'claims' else 'recipients link the documents by id and by content and would hold whatever either version left in the text')
          ~ '); nothing is published, the last published version (' ~ latest.name ~ ' version ' ~ latest.version ~ ') stays. ' ~ way_out}) -%}
  {%- endif -%}
  {{ return(out) }}
{%- endmacro %}

{#- The number of rows of `candidate` that are not rows of the published table `found`
    (multiplicity counts, as EXCEPT ALL counts them: rows_not_in_sql, portable), or none when
    that cannot be decided: `found` is missing,
    is not the latest published version (its fingerprint `published_hash`, taken once by the
    gate, is not `latest_hash`) or has other columns. -#}
{% macro kind_line_rows_not_in(candidate, found, published_hash, latest_hash) -%}
  {%- if found is none or published_hash is none or published_hash != latest_hash -%}{{ return(none) }}{%- endif -%}
  {%- set cols = adapter.get_columns_in_relation(candidate) | map(attribute='name') | list -%}
  {%- set theirs = adapter.get_columns_in_relation(found) | map(attribute='name') | map('lower') | list -%}
  {%- if cols | map('lower') | list != theirs -%}{{ return(none) }}{%- endif -%}
  {{ return(run_query(dbt_deid.rows_not_in_sql(candidate, found, cols)).rows[0][0] | int) }}
{%- endmacro %}

{#- The select list of the history columns the line gate reads (and filters on), for a history
    written by any package version: line_json, input_relation and release_kind as null where
    the table has no such column (the history of a version before them, read before
    the on-run-start hook prepare_release_tables adds them, as when the publish model runs alone). That is what
    the gate reads after the columns are added (null in every earlier row), so the check stays
    sound: a row without line_json has its table told by its relations (kind_line_row_table),
    a history without release_kind holds no claims or text version (those were first recorded
    with it). A string instead when a column the line cannot be told without is missing: the
    message. -#}
{% macro kind_line_history_columns(history) -%}
  {%- set have = adapter.get_columns_in_relation(history) | map(attribute='name') | map('lower') | list -%}
  {%- set needed = ['release_name', 'release_version', 'published_relation', 'settings_json', 'published_hash', 'recorded_at', 'status'] -%}
  {%- set absent = needed | reject('in', have) | list -%}
  {%- if absent -%}
    {{ return("the release history " ~ history ~ " was written by an older package version (no column(s) " ~ absent | join(', ') ~ "): the line's published versions cannot be told from it") }}
  {%- endif -%}
  {%- set out = [] -%}
  {%- for c in ['release_name', 'release_version', 'published_relation', 'input_relation', 'settings_json', 'published_hash', 'recorded_at', 'line_json', 'status', 'release_kind'] -%}
    {%- do out.append(c if c in have else 'cast(null as ' ~ dbt.type_string() ~ ') as ' ~ c) -%}
  {%- endfor -%}
  {{ return(out) }}
{%- endmacro %}

{#- "version(s) 1, 2 of release name 'a'; version(s) 1 of release name 'b'" for line rows. -#}
{% macro kind_line_versions(rows) -%}
  {%- set by = {} -%}{%- set order = [] -%}
  {%- for r in rows -%}
    {%- if r.name not in by -%}{%- do order.append(r.name) -%}{%- do by.update({r.name: []}) -%}{%- endif -%}
    {%- do by[r.name].append(r.version | int) -%}
  {%- endfor -%}
  {%- set parts = [] -%}
  {%- for n in order -%}{%- do parts.append('version(s) ' ~ by[n] | sort | join(', ') ~ " of release name '" ~ n ~ "'") -%}{%- endfor -%}
  {{ return(parts | join('; ')) }}
{%- endmacro %}
