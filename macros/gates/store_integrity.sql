{#- The per-record store checked whole against the release history and its key, project-wide
    (issue 32, holes 2, 3 and 4 of the review of lines found by records; docs/combined-lines.md):

    * the key (hole 3): every store row written since records a fingerprint of the key that
      keyed it (`key_check`: a hash of a fixed label and the key, never the key); a key replaced
      (`update deid_history_key ...`) makes every record look new, so a stored fingerprint that
      is not the current key's refuses, and so does a row without one (`key_check` emptied by
      hand hid a replaced key; the one project store is new in this unreleased version, so only
      a development build wrote rows without it: restore the store or restart the line).
    * rows deleted (hole 4): a published release whose store holds fewer distinct records than
      the history's `published_rows` for it refuses (distinct: copies of the rows left would
      otherwise make up the count).
    * rows repeated (review 15, M1): a published release whose store holds more rows than
      distinct records (the store appended to itself, e.g. a backup restored with `insert`
      instead of replacing the rows) refuses: each record is one row per release (the record
      id is unique), and the gate's linked check counts a record's rows as the releases
      holding it. A release already refused for fewer records is not named again.
    * the store dropped or emptied (hole 2): a published discharge release with no store rows
      refuses every release of the project (only this release name's versions of an earlier
      epoch, left behind by its own restart, are not asked for: another name's restart must not
      excuse a line that never opted in),
      whatever relation it is built from (a fresh store over a moved copy would otherwise start
      the protection over unnoticed).
    * the key replaced together with the store's fingerprints (review 7, finding 5): the
      history row of each published version records the key's fingerprint (line_json's
      `key_check`, from the gate); one that is not the current key's refuses.
    * the history and the store both dropped (review 7, finding 4), whatever the epoch
      (session 8: a kept `restart` excused it), and one name's history and store rows deleted
      while another name's remain (session 8): the published table (`published`, this
      release's) holds rows while the history records no published version of it, or it is
      no version the history records, or the history holds fewer published versions of it
      than one of them recorded before it (orphaned_publication_problems).
    A list of messages (release names, versions, ids and counts only). `key` is the key relation
    (none when missing or not one row: refused elsewhere); `known` the release ids the caller
    already names when they have no store rows. One scan of the store, grouped by release. -#}
{% macro store_integrity_problems(cfg, store, key, history, store_found, known=[], published=none) -%}
  {%- set out = [] -%}
  {%- set history_found = adapter.get_relation(history.database, history.schema, history.identifier) is not none -%}
  {%- do out.extend(dbt_deid.orphaned_publication_problems(published, history, history_found)) -%}
  {%- do out.extend(dbt_deid.dropped_line_problems(cfg, key, store, store_found, history, history_found, published)) -%}
  {%- if not history_found -%}{{ return(out) }}{%- endif -%}
  {%- set have = adapter.get_columns_in_relation(history) | map(attribute='name') | map('lower') | list -%}
  {%- set s = dbt.type_string() -%}
  {%- set kind = "release_kind" if 'release_kind' in have else "cast(null as " ~ s ~ ")" -%}
  {%- set line = "line_json" if 'line_json' in have else "cast(null as " ~ s ~ ")" -%}
  {%- set published = run_query("select release_id, release_name, release_version, " ~ line ~ ", published_rows from " ~ history
        ~ " where status = 'published' and (" ~ kind ~ " = 'discharge' or " ~ kind ~ " is null) order by recorded_at, release_id").rows -%}
  {%- set counts = {} -%}{%- set rows = {} -%}{%- set foreign = [] -%}
  {%- if store_found -%}
    {%- set check = ("sum(case when r.key_check is null or r.key_check <> " ~ dbt_deid.key_check_sql('k') ~ " then 1 else 0 end)") if key is not none else "0" -%}
    {%- for r in run_query("select r.release_id, count(distinct r.record_key), " ~ check ~ ", count(*) from " ~ store ~ " as r" ~ ((" cross join " ~ key ~ " as k") if key is not none else "") ~ " group by r.release_id order by 1").rows -%}
      {%- do counts.update({r[0]: r[1] | int}) -%}{%- do rows.update({r[0]: r[3] | int}) -%}
      {%- if (r[2] or 0) | int > 0 -%}{%- do foreign.append(r[0] ~ ' (' ~ r[2] ~ ' rows)') -%}{%- endif -%}
    {%- endfor -%}
  {%- endif -%}
  {%- if foreign | length > 0 -%}
    {%- do out.append("the key in " ~ key ~ " is not the key that keyed the stored rows of release(s) " ~ foreign | join(', ') ~ " (the key was replaced, or the rows' key fingerprint key_check emptied: every record would look new, recipients would hold each record twice; restore the key and the store, or restart the line)") -%}
  {%- endif -%}
  {%- set epoch = dbt_deid.line_epoch() -%}
  {%- set missing = [] -%}{%- set short = [] -%}{%- set rekeyed = [] -%}{%- set repeated = [] -%}
  {%- set current_check = run_query("select " ~ dbt_deid.key_check_sql('k') ~ " from " ~ key ~ " as k").rows[0][0] if key is not none else none -%}
  {%- for r in published -%}
    {%- set manifest = fromjson(r[3]) if r[3] else none -%}
    {%- if current_check is not none and manifest is mapping and manifest.get('key_check') and manifest.get('key_check') != current_check -%}
      {%- do rekeyed.append(r[1] ~ ' version ' ~ r[2] ~ ' (release ' ~ r[0] ~ ')') -%}
    {%- endif -%}
    {%- set its_epoch = (manifest.get('epoch') or '') if manifest is mapping else '' -%}
    {%- set n = counts.get(r[0], 0) -%}
    {%- set label = r[1] ~ ' version ' ~ r[2] ~ ' (release ' ~ r[0] ~ ')' -%}
    {%- if n == 0 and (its_epoch == epoch or r[1] != cfg.name) and r[0] not in known and (r[4] is none or r[4] | int > 0) -%}
      {%- do missing.append(label) -%}
    {%- elif n > 0 and r[4] is not none and n < r[4] | int -%}
      {%- do short.append(label ~ ': ' ~ n ~ ' of ' ~ r[4] ~ ' rows') -%}
    {%- elif n > 0 and rows.get(r[0], 0) > n -%}
      {%- do repeated.append(label ~ ': ' ~ rows.get(r[0]) ~ ' rows of ' ~ n ~ ' records') -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if rekeyed | length > 0 -%}
    {%- do out.append("the key in " ~ key ~ " is not the key the release history recorded for release(s) " ~ rekeyed | join(', ') ~ " (the key was replaced, with the store's fingerprints rewritten to match it, or this build's working schema is not the one these versions were published from: the key and the store live in the working schema. With another key every record would look new and recipients would hold each record twice: build in the working schema of the published versions, or restore the key and the store from a backup)") -%}
  {%- endif -%}
  {%- if missing | length > 0 -%}
    {%- do out.append("published release(s) " ~ missing | join(', ') ~ " of this project have no per-record rows in " ~ store ~ " (the store was dropped or emptied, or this build's working schema is not the one these versions were published from: a release over any relation would start the protection over unnoticed; build in the working schema of the published versions, or restore the store from a backup)") -%}
  {%- endif -%}
  {%- if short | length > 0 -%}
    {%- do out.append("the per-record store " ~ store ~ " holds fewer rows than published for release(s) " ~ short | join(', ') ~ " (rows deleted: their records would look new)") -%}
  {%- endif -%}
  {%- if repeated | length > 0 -%}
    {%- do out.append("the per-record store " ~ store ~ " holds more rows than records for release(s) " ~ repeated | join(', ') ~ " (rows stored twice: the store appended to itself, e.g. a backup restored with insert instead of replacing the rows; the linked check would count a record's copies as releases holding it): restore the store from a backup by replacing its rows, not inserting them") -%}
  {%- endif -%}
  {{ return(out) }}
{%- endmacro %}

{#- Review 8, F7: the history, the store **and** the published table dropped, the key table
    kept. The key table records the lines that stored published rows (`stored_epochs`: one
    token `<release name>@<epoch>@<source>` per line epoch, '|'-separated, '-' for no restart;
    record_stored_epoch, written with the store rows). Per line (review 8 final, R2: the store,
    key and history are shared by every release of the project, so another release's rows are
    no witness of this one): when the key records a token of this line (this release name, or
    another name over the same source, as line_own_rows_sql identifies the line) while the
    store holds no row of the line and the history (missing or not) no published discharge
    version of it (its name, its published table `published`, or its source), an earlier
    version was published and its records are held by recipients: a fresh "version 1" is
    refused unless the build starts a **new** epoch of this name (`restart` with a reason whose
    epoch stored nothing yet for this name: explicit, audited). A restart kept in the vars,
    whose epoch already stored rows, does not excuse it (a kept restart never excuses a lost
    history), and this name's restart never excuses another name's tokens over the same source
    (line_epoch_rows_sql: they count from every epoch). A token without a name (written by a
    development build of session 8) is read as before, project-wide: any store row or published
    history row excuses it. A key without the column or that stored nothing is no evidence. The
    key table dropped too leaves nothing to read (docs/combined-lines.md, "F7"). -#}
{% macro dropped_line_problems(cfg, key, store, store_found, history, history_found, published=none) -%}
  {%- if key is none -%}{{ return([]) }}{%- endif -%}
  {%- if not dbt_deid._key_has_stored_epochs(key) -%}{{ return([]) }}{%- endif -%}
  {%- set stored = run_query("select stored_epochs from " ~ key).rows[0][0] -%}
  {%- if not stored -%}{{ return([]) }}{%- endif -%}
  {%- set epoch = dbt_deid.line_epoch() or '-' -%}
  {%- set source = dbt_deid.line_source(cfg) -%}
  {%- set mine = [] -%}{%- set others = [] -%}{%- set legacy = [] -%}
  {%- for t in stored.split('|') | reject('equalto', '') -%}
    {%- set parts = t.split('@', 2) -%}
    {%- if parts | length < 3 -%}{%- do legacy.append(t) -%}
    {%- elif parts[0] == cfg.name -%}{%- do mine.append(parts[1]) -%}
    {%- elif parts[2] == source -%}{%- do others.append(parts[0] ~ ' ' ~ parts[1]) -%}
    {%- endif -%}
  {%- endfor -%}
  {#- this name's tokens excused by a new restart of this name only -#}
  {%- set witnesses = [] -%}
  {%- if mine and (epoch == '-' or epoch in mine) -%}{%- for e in mine | unique -%}{%- do witnesses.append(cfg.name ~ ' ' ~ e) -%}{%- endfor -%}{%- endif -%}
  {%- do witnesses.extend(others | unique) -%}
  {#- per line when the line has a token; else the old project-wide reading of a legacy one -#}
  {%- set line_only = witnesses | length > 0 -%}
  {%- if legacy and (epoch == '-' or epoch in legacy) -%}{%- do witnesses.extend(legacy | unique) -%}{%- endif -%}
  {%- if witnesses | length == 0 -%}{{ return([]) }}{%- endif -%}
  {%- set where = (" where " ~ dbt_deid.line_own_rows_sql(cfg)) if line_only else "" -%}
  {%- if store_found and (run_query("select count(*) from (select 1 as one from " ~ store ~ where ~ " limit 1) as x").rows[0][0] | int) > 0 -%}{{ return([]) }}{%- endif -%}
  {%- if history_found -%}
    {%- set have = adapter.get_columns_in_relation(history) | map(attribute='name') | map('lower') | list -%}
    {%- set cols = [] -%}
    {%- for c in ['release_name', 'published_relation', 'line_json', 'release_kind'] -%}
      {%- do cols.append(c if c in have else "cast(null as " ~ dbt.type_string() ~ ")") -%}
    {%- endfor -%}
    {%- set here = dbt_deid.kind_line_relation_key(published) if published is not none else none -%}
    {%- for r in run_query("select " ~ cols[:3] | join(', ') ~ " from " ~ history ~ " where status = 'published' and (" ~ cols[3] ~ " = 'discharge' or " ~ cols[3] ~ " is null)").rows -%}
      {%- set line = fromjson(r[2]) if r[2] else none -%}
      {%- if not line_only or r[0] == cfg.name or (here is not none and r[1] is not none and dbt_deid.kind_line_relation_key(r[1]) == here)
            or (line is mapping and line.get('source') == source) -%}{{ return([]) }}{%- endif -%}
    {%- endfor -%}
  {%- endif -%}
  {{ return(["the key table " ~ key ~ " records that published versions of this line were stored (release name and line epoch: " ~ witnesses | join(', ') ~ "), but the per-record store " ~ store ~ " and the release history " ~ history ~ ("" if history_found else " (missing: dropped?)") ~ " hold none of it (the line's history, store rows and published table dropped or emptied: a fresh version 1 would be published over what recipients already hold): restore the history and the store from a backup; or, to start this name over on purpose, build with a new setting `restart: {reason: '...'}` (audited: written into the history); a restart whose epoch already stored rows (" ~ ("none" if epoch == '-' else epoch) ~ " now) does not excuse it, nor does it excuse another release name's versions over the same source"]) }}
{%- endmacro %}

{#- Whether the key table has the column `stored_epochs` (added by record_stored_epoch). -#}
{% macro _key_has_stored_epochs(key) -%}
  {{ return('stored_epochs' in adapter.get_columns_in_relation(key) | map(attribute='name') | map('lower') | list) }}
{%- endmacro %}

{#- Record in the key table that this line's epoch stored published rows (called with the
    store rows, in the publish transaction): the token `<release name>@<epoch>@<source>` ('-'
    for no restart; dbt_deid.line_source) is appended to `stored_epochs` ('|'-separated, added
    to a key written before session 8), once. Read by dropped_line_problems. Spark: not
    recorded (no UPDATE on its plain tables). -#}
{% macro record_stored_epoch(key, cfg) -%}
  {{ return(dbt_deid.own(adapter.dispatch('record_stored_epoch', 'dbt_deid'))(key, cfg)) }}
{%- endmacro %}

{% macro default__record_stored_epoch(key, cfg) -%}
  {%- if not dbt_deid._key_has_stored_epochs(key) -%}
    {% call statement('deid_key_epochs_column') -%}alter table {{ key }} add column stored_epochs {{ dbt.type_string() }}{%- endcall %}
  {%- endif -%}
  {%- set token = cfg.name ~ '@' ~ (dbt_deid.line_epoch() or '-') ~ '@' ~ dbt_deid.line_source(cfg) -%}
  {% call statement('deid_key_epochs_update') -%}
    update {{ key }} set stored_epochs = coalesce(stored_epochs, '|') || {{ dbt_deid.literal(token ~ '|') }}
    where {{ dbt.position(dbt_deid.literal('|' ~ token ~ '|'), "coalesce(stored_epochs, '')") }} = 0
  {%- endcall %}
{%- endmacro %}

{% macro spark__record_stored_epoch(key, cfg) -%}
{%- endmacro %}

{#- The published table `published` (the release's own, `this` in the publish step) checked
    against the release history's published discharge versions of it (by `published_relation`,
    without catalog; a row without one counts as its). A list of messages; [] when `published`
    is none, missing or empty (the first build of a project, or `--empty`).

    * Orphaned (review 7, finding 4): the table holds rows while the history (missing, or
      without a published version of it) records none: the history and the per-record store
      dropped or emptied, each the other's witness, so a fresh "version 1" would be published
      over what recipients hold. Refused whatever the line epoch: a `restart` kept in the vars
      (removing it is refused, so every later build of a restarted line has it) excused it
      until session 8, and once the history is gone a new restart cannot be told from a kept
      one. The way out: restore the history, or archive/drop the published table on purpose,
      then `restart` (docs/combined-lines.md, "Session 8").
    * Not the history's (one name's history and store rows deleted while another name's rows
      for the table remain): the table must be a version the history records for it, by its
      fingerprint (`published_hash`, table_fingerprint; for rows recorded without one or by
      another package version, whose fingerprint SQL may differ, by row count); and each published row records the number of published rows the history held
      for the table before it (line_json's `relation_versions_before`, written by
      release_manifest): the history holding fewer now is rows deleted. -#}
{% macro orphaned_publication_problems(published, history, history_found) -%}
  {%- if published is none -%}{{ return([]) }}{%- endif -%}
  {%- if adapter.get_relation(published.database, published.schema, published.identifier) is none -%}{{ return([]) }}{%- endif -%}
  {%- set n = run_query("select count(*) from (select 1 as one from " ~ published ~ " limit 1) as x").rows[0][0] | int -%}
  {%- if n == 0 -%}{{ return([]) }}{%- endif -%}
  {%- set way_out = "restore the release history " ~ history ~ " (and the per-record store) from a backup; or, to start over on purpose, archive or drop the published table " ~ published ~ " first (recipients keep what they received) and build with the setting `restart: {reason: '...'}` (audited: written into the history); a `restart` alone does not excuse it (once the history is gone, a new restart cannot be told from one kept in the vars)" -%}
  {%- set versions = dbt_deid.published_versions_of(history, published) if history_found else [] -%}
  {%- if versions | length == 0 -%}
    {{ return(["the published table " ~ published ~ " holds rows, but the release history " ~ history ~ ("" if history_found else " (missing: dropped?)") ~ " records no published version of it (the history and the per-record store dropped or emptied: a fresh version 1 would be published over what recipients already hold): " ~ way_out]) }}
  {%- endif -%}
  {%- set out = [] -%}
  {%- set before = versions | selectattr('before', 'number') | map(attribute='before') | list -%}
  {%- set counted = versions | selectattr('this_table') | list | length -%}
  {%- if before and counted < (before | max) + 1 -%}
    {%- do out.append("the release history " ~ history ~ " records " ~ counted ~ " published version(s) of the published table " ~ published ~ ", but one of them was published after " ~ before | max ~ " other(s) (at least " ~ ((before | max) + 1) ~ " expected: history rows deleted, of this name or another, with their store rows: their versions would drop out of the combined view): " ~ way_out) -%}
  {%- endif -%}
  {%- set fp = dbt_deid.table_fingerprint(published) -%}
  {#- a fingerprint is compared only with rows of this package version (the fingerprint's SQL
      may differ between versions); other rows by their row count -#}
  {%- set same = [] -%}{%- set counts = [] -%}
  {%- for v in versions -%}
    {%- if v.hash and v.package_version == dbt_deid.package_version() -%}{%- do same.append(v.hash) -%}{%- else -%}{%- do counts.append(v.rows) -%}{%- endif -%}
  {%- endfor -%}
  {%- set hashes = same -%}
  {%- if fp.hash not in hashes and (fp.rows | int) not in counts -%}
    {%- do out.append("the published table " ~ published ~ " (" ~ fp.rows ~ " row(s)) is not a version the release history " ~ history ~ " records for it (no published version with its fingerprint: the history rows of the version it holds were deleted, of this name or another, with their store rows, or the table was changed by hand): " ~ way_out) -%}
  {%- endif -%}
  {{ return(out) }}
{%- endmacro %}

{#- The published discharge versions the history records for the published table `published`
    (by `published_relation` without catalog; a row without one counts as its): a list of
    {hash, rows, before, this_table, package_version}: the published fingerprint, the
    published row count, line_json's `relation_versions_before` (none when not recorded),
    whether the row names the table and the package version that wrote it (a row without a relation is not counted against `relation_versions_before`,
    as release_manifest does not count it). Columns of an older history read as null. -#}
{% macro published_versions_of(history, published) -%}
  {%- set have = adapter.get_columns_in_relation(history) | map(attribute='name') | map('lower') | list -%}
  {%- set s = dbt.type_string() -%}
  {%- set cols = [] -%}
  {%- for c in ['published_relation', 'published_hash', 'published_rows', 'line_json', 'package_version', 'release_kind'] -%}
    {%- do cols.append(c if c in have else "cast(null as " ~ s ~ ")") -%}
  {%- endfor -%}
  {%- set mine = dbt_deid.kind_line_relation_key(published) -%}
  {%- set out = [] -%}
  {%- for r in run_query("select " ~ cols[:5] | join(', ') ~ " from " ~ history ~ " where status = 'published' and (" ~ cols[5] ~ " = 'discharge' or " ~ cols[5] ~ " is null)").rows -%}
    {%- set this_table = r[0] is not none and dbt_deid.kind_line_relation_key(r[0]) == mine -%}
    {%- if r[0] is none or this_table -%}
      {%- set line = fromjson(r[3]) if r[3] else none -%}
      {%- set before = line.get('relation_versions_before') if line is mapping else none -%}
      {%- do out.append({'hash': r[1], 'rows': none if r[2] is none else r[2] | int, 'before': before if before is number else none, 'this_table': this_table, 'package_version': r[4]}) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(out) }}
{%- endmacro %}

{#- The fingerprint of the key in `key_alias` (a row of deid_history_key joined into the query):
    a hash of a fixed label and the key, written into each store row (`key_check`) so a
    replaced key is seen; the key itself is never written. -#}
{% macro key_check_sql(key_alias) -%}
  {{ return(dbt.hash(dbt.concat(["'dbt_deid-key-check|'", key_alias ~ '.key_value']))) }}
{%- endmacro %}
