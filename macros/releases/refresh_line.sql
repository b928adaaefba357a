{#- A release that lives (issue 32): a build of a release line with published versions is a
    refresh. Like an incremental model reads `this`, the refresh reads the per-record store
    (deid_release_records: per record key and version, the true value at the line's levels and
    the published cell) and the current generalized records; no earlier published table.

    * refresh_line(cfg): the line's store, key and previous version, or none (no published
      version in the store: version 1 is seed 000's algorithm on the pattern table).
    * refresh_records_sql(cfg, generalized, line): the current records, each with its pair
      columns `<qi>__earlier`, `<qi>__published`, `<qi>__revealed` (dbt_deid.living.pairs).
    * refresh_pairs_sql(cfg, generalized, line): the pairs the Python core reads: the current
      records grouped by (current, earlier, published, revealed) tuples, plus the rows of every
      state no longer current (deleted records, earlier states of changed ones), which stay in
      the combined view, and per stored release the smallest and largest of the records' true
      values there (where it holds another state) and own cells there (the linked guard's
      detail, not keys). One full outer join and one GROUP BY (docs/living-release.md).
    * current_patterns(cfg, patterns): deid_patterns as its readers expect it (the current
      records' QI tuples with counts), whether or not it holds the pairs.
    No value of a record is written anywhere new: the pairs sit in the working schema, as
    deid_patterns does. -#}

{#- The line's epoch: '' until the line is started over; then the md5 of `restart.reason` (a new
    reason starts a new line; the same reason keeps refreshing the restarted one). -#}
{% macro line_epoch() -%}
  {%- set restart = (dbt_deid.release_settings() or {}).get('restart') -%}
  {%- if restart is mapping and restart.get('reason') -%}{{ return(local_md5(restart.reason | string)[:16]) }}{%- endif -%}
  {{ return('') }}
{%- endmacro %}

{#- The line's source identity: the source relation without its catalog (schema.identifier,
    lower case; a renamed DuckDB file renames the catalog), found in the graph (no ref). -#}
{% macro line_source(cfg) -%}
  {%- set rel = dbt_deid._graph_relation(cfg.source) -%}
  {%- if rel is none -%}{{ return((cfg.source.source_name ~ '.' ~ cfg.source.table) if cfg.source is mapping else (cfg.source | string) | lower) }}{%- endif -%}
  {{ return(rel.include(database=false) | string | lower) }}
{%- endmacro %}

{#- The store rows of the line as a SQL condition: the rows of the line's epoch written by this
    release name or by any release over the same source (what is combined is the source's
    records, not a release name: macros/releases/combined_lines.sql, issue 32 item 2). -#}
{% macro line_rows_condition(cfg, alias='') -%}
  {{ return(dbt_deid.combined_lines_condition(cfg, alias)) }}
{%- endmacro %}

{#- The release ids of the store's rows of the line (line_rows_condition), a list; read by the
    gate combined_releases and assert_no_hierarchy_moves. -#}
{% macro line_release_ids(cfg, store) -%}
  {{ return(run_query("select distinct release_id from " ~ store ~ " where " ~ dbt_deid.line_rows_condition(cfg)).columns[0].values() | list) }}
{%- endmacro %}

{#- One refusal of the line's build: nothing is computed or published. -#}
{% macro _line_refused(cfg, what, todo) -%}
  {{ exceptions.raise_compiler_error("model " ~ this.identifier ~ ": release line '" ~ cfg.name ~ "': " ~ what ~ "; nothing is published, the last published version stays. " ~ todo) }}
{%- endmacro %}

{#- The settings whose change between versions of a line is refused (the combined view is
    checked under one set of them); a change of levels or hierarchies is refused by the gate
    combined_releases, naming the QI setting. `max_changed_share` (review 8 final, R3): the
    renumbered-ids check's limit is set when the line starts (first version or `restart`),
    never raised between versions. -#}
{% macro line_settings() -%}
  {{ return(['source', 'record_id', 'combinations', 'demographics', 'hierarchical_qis', 'tau', 'k', 'preset', 'algorithm', 'missing_label', 'max_changed_share']) }}
{%- endmacro %}

{#- The store and key of the line (relations in the working schema, found in the graph: a ref
    to deid_gate_results would be a cycle) and its previous version, or none when the store
    holds no version of the line (or its levels changed: then the gate combined_releases
    checks the combination at mixed levels). The line is every release name over the same
    source (combined_lines.sql); the previous version is the line's latest, whatever its name. Only at run time (none when parsing, under --empty, and for releases
    whose QIs are not all released, or that OLA's record suppression makes). Before a refresh,
    the line is checked (check_line): a re-key (under any name of the line), a history or
    store that lost versions (of any name of the line), changed settings and a store of another package version are
    each refused, naming the one explicit way to start over (`restart: {reason: ...}`). -#}
{% macro refresh_line(cfg) -%}
  {%- if not execute or flags.EMPTY -%}{{ return(none) }}{%- endif -%}
  {%- set gate = dbt_deid._graph_relation(dbt_deid.release_node_name('deid_gate_results')) -%}
  {%- if gate is none -%}{{ return(none) }}{%- endif -%}
  {%- set store = dbt_deid.release_records_relation(gate) -%}
  {%- set key = dbt_deid.history_key_relation(gate) -%}
  {%- if adapter.get_relation(store.database, store.schema, store.identifier) is none
        or adapter.get_relation(key.database, key.schema, key.identifier) is none -%}
    {%- do dbt_deid.check_line(cfg, none) -%}
    {{ return(none) }}
  {%- endif -%}
  {%- do dbt_deid.ensure_store_line_columns(store) -%}
  {#- the line is checked for every release, OLA's too (a re-key was never refused there:
      review 7, finding 2b); an OLA release is then not built as a refresh (its record
      suppression makes it): the gate combined_releases checks it against the line -#}
  {%- do dbt_deid.check_line(cfg, store) -%}
  {%- if dbt_deid.ola_enabled() -%}{{ return(none) }}{%- endif -%}
  {%- set have = adapter.get_columns_in_relation(store) | map(attribute='name') | map('lower') | list -%}
  {%- for q in cfg.qi_names -%}
    {%- if q | lower not in have or (q ~ '__generalized') | lower not in have -%}{{ return(none) }}{%- endif -%}
  {%- endfor -%}
  {%- set previous = dbt_deid.line_previous_release(cfg, store) -%}
  {%- if previous is none -%}{{ return(none) }}{%- endif -%}
  {#- levels or hierarchies changed: not a refresh; the gate refuses naming the setting -#}
  {%- set history = dbt_deid.line_history_relation() -%}
  {%- set rows = run_query("select released_levels_json, settings_json from " ~ history ~ " where release_id = " ~ dbt_deid.literal(previous.release_id)).rows -%}
  {%- if rows and rows[0][0] and tojson(fromjson(rows[0][0]), sort_keys=true) != tojson(dbt_deid.released_level_specs(cfg), sort_keys=true) -%}
    {{ return(none) }}
  {%- endif -%}
  {#- another sample (slot, fraction, seed, order) is another draw, not a refresh of the same
      file: built as seed 000 builds its disjoint files, then checked by the gate against
      everything published -#}
  {%- if rows and rows[0][1] and tojson(fromjson(rows[0][1]).get('sample'), sort_keys=true) != tojson((dbt_deid.release_settings() or {}).get('sample'), sort_keys=true) -%}
    {{ return(none) }}
  {%- endif -%}
  {%- set release_ids = dbt_deid.line_release_ids(cfg, store) | map('string') | sort | list -%}
  {#- the releases of the line at other levels than this version's (a QI's recorded level
      differs or is missing, as the gate's release_levels read them; review 11 final, L1): a
      state held there is no target of the guard (deid_history writes '3', not '2'; the gate
      compares it, review 12b H1, review 12 final L1); a release without
      recorded levels keeps '2' (a target for the guard, counted 1: never more than the gate,
      which refuses such a release) -#}
  {%- set other_levels = [] -%}{%- set quoted = [] -%}{%- set mine = dbt_deid.released_level_specs(cfg) -%}
  {%- for rid in release_ids -%}{%- do quoted.append(dbt_deid.literal(rid)) -%}{%- endfor -%}
  {%- for r in run_query("select release_id, released_levels_json from " ~ history ~ " where release_id in (" ~ quoted | join(', ') ~ ")").rows -%}
    {%- if r[1] -%}
      {%- set theirs = fromjson(r[1]) -%}
      {%- for q, spec in mine.items() if (r[0] | string) not in other_levels and (theirs.get(q) is not mapping or theirs[q].get('level') | int != spec.level | int) -%}{%- do other_levels.append(r[0] | string) -%}{%- endfor -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return({'store': store, 'key': key, 'previous': previous.version, 'previous_release_id': previous.release_id, 'previous_name': previous.name,
             'release_ids': release_ids, 'other_levels': other_levels}) }}
{%- endmacro %}

{#- The release history of the line (next to the published table; found in the graph). -#}
{% macro line_history_relation() -%}
  {%- set published = dbt_deid._graph_relation(dbt_deid.release_node_name('deid_published')) -%}
  {%- if published is none -%}{{ return(none) }}{%- endif -%}
  {{ return(api.Relation.create(database=published.database, schema=published.schema, identifier='deid_release_history', type='table')) }}
{%- endmacro %}

{#- The line's checks before a build (issue 32, item 2): history and store check each other
    (versions missing from either are a refusal, not a fresh start), the record identity, the
    record identity of every name over the source, the settings and the package version. `store` is none when
    the store (or its key) is missing. -#}
{% macro check_line(cfg, store) -%}
  {%- set epoch = dbt_deid.line_epoch() -%}
  {%- set restart = "start the line over explicitly with the setting `restart: {reason: '...'}` (audited: written into the history) or " -%}
  {%- set history = dbt_deid.line_history_relation() -%}
  {%- set hist_by_name = {} -%}
  {%- set hist_found = history is not none and adapter.get_relation(history.database, history.schema, history.identifier) is not none -%}
  {%- if hist_found -%}
    {%- for r in run_query("select release_name, release_version from " ~ history ~ " where status = 'published' and release_version is not null group by release_name, release_version").rows -%}
      {%- do hist_by_name.setdefault(r[0], []).append(r[1] | int) -%}
    {%- endfor -%}
  {%- endif -%}
  {%- set hist_versions = hist_by_name.get(cfg.name, []) -%}
  {#- a store (or key) missing, or versions missing from it: not a refresh; the gate
      combined_releases refuses ("no per-record rows"), naming the restart -#}
  {%- if store is none -%}{{ return(none) }}{%- endif -%}
  {%- set have = adapter.get_columns_in_relation(store) | map(attribute='name') | map('lower') | list -%}
  {%- set has_line = 'line_epoch' in have -%}
  {%- set rows = run_query("select release_name, " ~ ("coalesce(line_epoch, ''), coalesce(record_id_column, ''), coalesce(source_relation, ''), coalesce(package_version, '')" if has_line else "'', '', '', ''") ~ ", release_version, release_id from " ~ store ~ " group by 1, 2, 3, 4, 5, 6, 7").rows -%}
  {#- the other names of the line: over the same source relation, or sharing records with it
      (a view, a copy, a moved table, rows without a recorded source), of every epoch (a
      restart excuses only its own name's versions: review 7, finding 3) -#}
  {%- set shared_ids = dbt_deid.line_shared_release_ids(cfg) -%}
  {%- set mine = [] -%}{%- set others = [] -%}{%- set epochs = {} -%}
  {%- for r in rows -%}
    {%- if r[0] == cfg.name -%}
      {%- do mine.append(r) -%}
      {%- if r[5] | int > epochs.get(r[1], 0) -%}{%- do epochs.update({r[1]: r[5] | int}) -%}{%- endif -%}
    {%- elif (r[3] and r[3] == dbt_deid.line_source(cfg)) or r[6] in shared_ids -%}
      {%- do others.append(r) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set store_versions = mine | map(attribute=5) | map('int') | unique | list -%}
  {%- if mine | length == 0 -%}{%- do dbt_deid._check_line_others(cfg, others, hist_by_name, history, hist_found) -%}{{ return(none) }}{%- endif -%}
  {%- set lost_history = [] -%}{%- set lost_store = [] -%}
  {%- for v in store_versions -%}{%- if v not in hist_versions -%}{%- do lost_history.append(v) -%}{%- endif -%}{%- endfor -%}
  {%- for v in hist_versions -%}{%- if v not in store_versions -%}{%- do lost_store.append(v) -%}{%- endif -%}{%- endfor -%}
  {%- set latest_epoch = (epochs | dictsort(by='value') | last)[0] -%}
  {%- if epoch != '' and epoch not in epochs -%}{%- do dbt_deid._check_line_others(cfg, others, hist_by_name, history, hist_found) -%}{{ return(none) }}{%- endif -%}  {#- a new line (restart) -#}
  {%- if lost_history | length > 0 -%}
    {{ dbt_deid._line_refused(cfg, "the per-record store holds published version(s) " ~ lost_history | sort | join(', ') ~ " that the release history " ~ (history if hist_found else "(missing: dropped?)") ~ " does not record (deleted, truncated or dropped rows)", "Restore the history from a backup (never edit it), or archive or drop the published table first (the gate refuses a published table whose versions the history lost, restart or not), then " ~ restart[:-4] ~ ".") }}
  {%- endif -%}

  {%- if epoch != latest_epoch -%}
    {{ dbt_deid._line_refused(cfg, "the line was started over (setting `restart`) after the versions of this setting", "Keep the `restart` setting of the latest version (the same reason), or " ~ restart[:-4] ~ " with a new reason.") }}
  {%- endif -%}
  {%- set current = [] -%}
  {%- for r in mine -%}{%- if r[1] == epoch and r[5] | int == epochs[epoch] -%}{%- do current.append(r) -%}{%- endif -%}{%- endfor -%}
  {%- for r in current -%}
    {%- if r[2] and r[2] != cfg.record_id | lower -%}
      {{ dbt_deid._line_refused(cfg, "record_id is " ~ cfg.record_id ~ " but the published versions were keyed by " ~ r[2] ~ " (a re-key makes every record look new: recipients would hold each record twice under two keys)", "Keep record_id: " ~ r[2] ~ ", or " ~ restart[:-4] ~ ".") }}
    {%- endif -%}
    {%- if r[4] and r[4] != dbt_deid.package_version() -%}
      {{ dbt_deid._line_refused(cfg, "the per-record store was written by dbt_deid " ~ r[4] ~ ", this is " ~ dbt_deid.package_version(), "Build with dbt_deid " ~ r[4] ~ ", or " ~ restart[:-4] ~ ".") }}
    {%- endif -%}
  {%- endfor -%}
  {#- settings changed since the previous version (sample slots and limits may change) -#}
  {%- if hist_found -%}
    {%- set prev = run_query("select settings_json from " ~ history ~ " where status = 'published' and release_name = " ~ dbt_deid.literal(cfg.name) ~ " and release_version = " ~ epochs[epoch]).rows -%}
    {%- if prev and prev[0][0] -%}
      {%- set before = fromjson(prev[0][0]) -%}{%- set now = dbt_deid.release_settings() or {} -%}
      {%- set changed = [] -%}
      {%- for name in dbt_deid.line_settings() -%}
        {%- if tojson(before.get(name), sort_keys=true) != tojson(now.get(name), sort_keys=true) -%}{%- do changed.append(name) -%}{%- endif -%}
      {%- endfor -%}
      {%- if changed | length > 0 -%}
        {{ dbt_deid._line_refused(cfg, "setting(s) " ~ changed | join(', ') ~ " changed since version " ~ epochs[epoch] ~ " (the combined view of a line is checked under one set of them)", "Put them back, or " ~ restart[:-4] ~ ".") }}
      {%- endif -%}
    {%- endif -%}
  {%- endif -%}
  {%- do dbt_deid._check_line_others(cfg, others, hist_by_name, history, hist_found) -%}
{%- endmacro %}

{#- check_line for the other release names over the same source (combined with this release:
    combined_lines.sql): their record identity must be this one, and their history and store
    must agree. Run after this name's own checks, so those name the problem first. A release
    found by its record keys (line_shared_release_ids) over another relation is keyed as this
    one whatever its record id column was called (a view renaming the column): its column name
    is not compared. Over the same source it is: two integer id columns (1..n each) share keys
    without being the same records. The way out named is one that helps: a `restart` of this
    release excuses only its own earlier versions (combined_lines.sql), never another name's,
    so it is not offered here. -#}
{% macro _check_line_others(cfg, others, hist_by_name, history, hist_found) -%}
  {%- set by_records = dbt_deid.line_shared_release_ids(cfg) -%}
  {%- for r in others -%}
    {%- set not_restart = "a restart of this release does not start over release name " ~ r[0] ~ "'s versions: they count from every epoch, recipients hold them" -%}
    {%- if r[2] and r[2] != cfg.record_id | lower and (r[6] not in by_records or r[3] == dbt_deid.line_source(cfg)) -%}
      {{ dbt_deid._line_refused(cfg, "record_id is " ~ cfg.record_id ~ " but the published versions were keyed by " ~ r[2] ~ " (release name " ~ r[0] ~ ", over " ~ (("the same source " ~ r[3] | replace('"', '')) if r[3] == dbt_deid.line_source(cfg) else ("records of this source, published from " ~ (r[3] | replace('"', '') or 'a source not recorded'))) ~ ": a re-key makes every record look new: recipients would hold each record twice under two keys)", "Keep record_id: " ~ r[2] ~ " (" ~ not_restart ~ ").") }}
    {%- endif -%}
    {%- if (r[5] | int) not in hist_by_name.get(r[0], []) -%}
      {{ dbt_deid._line_refused(cfg, "the per-record store holds published version(s) " ~ r[5] ~ " of release name " ~ r[0] ~ " (over " ~ (("the same source " ~ r[3] | replace('"', '')) if r[3] == dbt_deid.line_source(cfg) else ("records of this source, published from " ~ (r[3] | replace('"', '') or 'a source not recorded'))) ~ ") that the release history " ~ (history if hist_found else "(missing: dropped?)") ~ " does not record (deleted, truncated or dropped rows)", "Restore the history from a backup (never edit it; " ~ not_restart ~ ").") }}
    {%- endif -%}
  {%- endfor -%}
{%- endmacro %}

{#- The form of the refresh's per-release detail (the linked guard's `deid_history` and the
    pairs' `<qi>__was`, `<qi>__own` values, review 11 final M1): wide (session 12: per stored
    release a column per QI and kind, 4 x Q x R columns of the pairs table, and more in the
    states' CTEs) while those columns are at most 400 (4 QIs: 25 stored versions; 8 QIs: 12),
    as the wide form is the cheaper at a few versions (the long one cost 1.6-1.7 times its CPU
    at 2: docs/living-release.md); past them long (session 14, review 12 final L2: the detail
    as rows, `deid_detail_releases`; the width does not grow with the stored versions, where
    the wide pairs of 8 QIs passed PostgreSQL's 1,600 columns near 49 versions). The gate's
    linked check chooses the same way (linked_changes_sql.sql). `line.pairs_long` true or
    false forces one (the tests run both). -#}
{% macro _refresh_pairs_long(cfg, line) -%}
  {%- set forced = line.get('pairs_long') -%}
  {%- if forced is not none -%}{{ return(forced) }}{%- endif -%}
  {{ return(4 * cfg.qi_names | length * line.release_ids | length > 400) }}
{%- endmacro %}

{#- The column lists of the pairs: the QIs, then their earlier, published, revealed columns
    (dbt_deid.living.pairs.pair_columns), then the record's history `deid_history`
    (dbt_deid.living.pairs.HISTORY). -#}
{% macro refresh_pair_columns(cfg) -%}
  {%- set out = [] -%}
  {%- for q in cfg.qi_names -%}{%- do out.append(q) -%}{%- endfor -%}
  {%- for s in ['__earlier', '__published', '__revealed'] -%}
    {%- for q in cfg.qi_names -%}{%- do out.append(q ~ s) -%}{%- endfor -%}
  {%- endfor -%}
  {%- do out.append('deid_history') -%}
  {{ return(out) }}
{%- endmacro %}

{#- The store's record states of the line (CTEs `deid_states` and `deid_earlier`): per record
    key and true tuple, the finest cell any version revealed, the latest version holding the
    state (`deid_state_rank` = 1: the record's latest state), and the cell of the previous
    version when that version holds the state (else the revealed cell). One GROUP BY of the
    store's rows and a window over its states: the previous version's cell is taken in the same
    GROUP BY (a state holds at most one row of a version), not joined back on the key and every
    true value. `deid_history` (review 10 final, H1; read by the linked guard,
    dbt_deid.living.linked): per release of the line (`line.release_ids`, sorted), '1' when it
    holds the record in its latest state, '2' in another state, '3' in another state when the
    release is at other levels than this version (`line.other_levels`; review 11 final, L1: no
    target of the guard; the gate's deid_restated compares it, review 12b H1, review 12 final
    L1), '0' when it does not hold
    the record; on the latest state's row only (null on the others). Per release `i` (1-based,
    the order of `deid_history`) and QI, on the latest state's row too (review 11 final, M1:
    what the gate's linked check reads per release, linked_changes_sql.sql's `<qi>__w<i>` and
    `<qi>__c<i>`): `<qi>__was<i>`, the record's true value in release `i` when that release
    holds another state of it (null otherwise), and `<qi>__own<i>`, its own cell there (null:
    suppressed, or not held); the pairs carry their smallest and largest per row (not keys).
    That is the wide form; past 400 per-release columns (_refresh_pairs_long) the long form
    has no per-release column: `deid_held`, one row per stored row of the line with whether it
    holds the record's latest state (`deid_latest`) and its release's index (`deid_release`),
    and `deid_history` grouped from it; the pairs read their detail from `deid_held`. -#}
{% macro _refresh_states_ctes(cfg, line) -%}
  {%- set qis = cfg.qi_names -%}
  {%- set prev = dbt_deid.literal(line.previous_release_id) -%}
  {%- set long = dbt_deid._refresh_pairs_long(cfg, line) -%}
  {%- set others = line.get('other_levels') or [] -%}
  deid_store as (
    select record_key, release_version, release_id
      {%- if long %}
      , case {% for rid in line.release_ids %}when release_id = {{ dbt_deid.literal(rid) }} then {{ loop.index }} {% endfor %}end as deid_release
      {%- endif %}
      {%- for q in qis %}, {{ dbt_deid.ident(q) }} as {{ dbt_deid.ident(q ~ '__cell') }}, coalesce({{ dbt_deid.ident(q ~ '__generalized') }}, {{ dbt_deid.ident(q) }}) as {{ dbt_deid.ident(q ~ '__true') }}{% endfor %}
    from {{ line.store }}
    where {{ dbt_deid.line_rows_condition(cfg) }}
  ),
  deid_states_grouped as (
    select record_key
      {%- for q in qis %}, {{ dbt_deid.ident(q ~ '__true') }}{% endfor %},
      max(case when release_id = {{ prev }} then 1 else 0 end) as deid_in_previous,
      max(release_version) as deid_last_version
      {%- if not long %}
      {%- for rid in line.release_ids %}, max(case when release_id = {{ dbt_deid.literal(rid) }} then 1 else 0 end) as {{ dbt_deid.ident('deid_in_' ~ loop.index) }}{% endfor %}
      {%- endif %}
      {%- for q in qis %}, max({{ dbt_deid.ident(q ~ '__cell') }}) as {{ dbt_deid.ident(q ~ '__revealed') }}{% endfor %}
      {%- for q in qis %}, max(case when release_id = {{ prev }} then {{ dbt_deid.ident(q ~ '__cell') }} end) as {{ dbt_deid.ident(q ~ '__previous') }}{% endfor %}
      {%- if not long %}
      {%- for rid in line.release_ids %}{% set i = loop.index %}{% for q in qis %}, max(case when release_id = {{ dbt_deid.literal(rid) }} then {{ dbt_deid.ident(q ~ '__cell') }} end) as {{ dbt_deid.ident(q ~ '__o' ~ i) }}{% endfor %}{% endfor %}
      {%- endif %}
    from deid_store
    group by record_key{% for q in qis %}, {{ dbt_deid.ident(q ~ '__true') }}{% endfor %}
  ),
  {#- the record's latest state and, per release (wide form only), whether a state of the
      record is there, its cells there and its true values there: a window over the states of
      each record. A record with one state (every record a refresh keeps or adds, unless its
      values changed) is its own partition: rank 1, and each window maximum is the state's own
      value; those states skip the window (refresh_states_split: the window over every state
      of the 240,000-record bench line was half the pairs' CPU time), the others (records with
      two states or more) go through it as before. Same rows either way. The long form has no
      per-release window: its detail is deid_held below. -#}
  {%- set windowed -%}
    row_number() over (partition by record_key order by deid_in_previous desc, deid_last_version desc) as deid_state_rank
      {%- if not long %}
      {%- for rid in line.release_ids %}, max({{ dbt_deid.ident('deid_in_' ~ loop.index) }}) over (partition by record_key) as {{ dbt_deid.ident('deid_any_' ~ loop.index) }}{% endfor %}
      {%- for rid in line.release_ids %}{% set i = loop.index %}{% for q in qis %}
      , max({{ dbt_deid.ident(q ~ '__o' ~ i) }}) over (partition by record_key) as {{ dbt_deid.ident(q ~ '__ow' ~ i) }}
      , max(case when {{ dbt_deid.ident('deid_in_' ~ i) }} = 1 then {{ dbt_deid.ident(q ~ '__true') }} end) over (partition by record_key) as {{ dbt_deid.ident(q ~ '__wa' ~ i) }}
      {%- endfor %}{% endfor %}
      {%- endif %}
  {%- endset -%}
  {%- if dbt_deid.refresh_states_split() %}
  deid_multi_state as (
    select record_key from deid_states_grouped group by record_key having count(*) > 1
  ),
  deid_states as (
    select s.*, 1 as deid_state_rank
      {%- if not long %}
      {%- for rid in line.release_ids %}, s.{{ dbt_deid.ident('deid_in_' ~ loop.index) }} as {{ dbt_deid.ident('deid_any_' ~ loop.index) }}{% endfor %}
      {%- for rid in line.release_ids %}{% set i = loop.index %}{% for q in qis %}
      , s.{{ dbt_deid.ident(q ~ '__o' ~ i) }} as {{ dbt_deid.ident(q ~ '__ow' ~ i) }}
      , case when s.{{ dbt_deid.ident('deid_in_' ~ i) }} = 1 then s.{{ dbt_deid.ident(q ~ '__true') }} end as {{ dbt_deid.ident(q ~ '__wa' ~ i) }}
      {%- endfor %}{% endfor %}
      {%- endif %}
    from deid_states_grouped as s
    where s.record_key is not null
      and not exists (select 1 from deid_multi_state as m where m.record_key = s.record_key)
    union all
    select s.*, {{ windowed }}
    from deid_states_grouped as s
    where s.record_key is null
       or exists (select 1 from deid_multi_state as m where m.record_key = s.record_key)
  ),
  {%- else %}
  deid_states as (
    select s.*, {{ windowed }}
    from deid_states_grouped as s
  ),
  {%- endif %}
  {%- if long %}
  {#- long form (review 12 final, L2): one row per stored row of the line, whether it holds
      the record's latest state (its true values, NULL equal to NULL); a (record, release) row
      stored twice adds a row equal to one already there, which the maxima and minima below
      read once (review 15, M1: no count of rows stands for a count of releases) -#}
  deid_held as (
    select r.record_key, r.deid_release
      {%- for q in qis %}, r.{{ dbt_deid.ident(q ~ '__cell') }}, r.{{ dbt_deid.ident(q ~ '__true') }}{% endfor %}
      , case when 1 = 1{% for q in qis %} and (r.{{ dbt_deid.ident(q ~ '__true') }} = l.{{ dbt_deid.ident(q ~ '__true') }} or (r.{{ dbt_deid.ident(q ~ '__true') }} is null and l.{{ dbt_deid.ident(q ~ '__true') }} is null)){% endfor %} then 1 else 0 end as deid_latest
    from deid_store as r
    inner join deid_states as l on l.record_key = r.record_key and l.deid_state_rank = 1
  ),
  deid_held_history as (
    select record_key,
      {% for rid in line.release_ids %}(case max(case when deid_release = {{ loop.index }} then deid_latest end) when 1 then '1' when 0 then {{ "'3'" if rid in others else "'2'" }} else '0' end){{ ' || ' if not loop.last }}{% else %}''{% endfor %} as deid_history
    from deid_held
    group by record_key
  ),
  {%- endif %}
  deid_earlier as (
    select s.record_key, s.deid_state_rank
      {%- for q in qis %}
      , s.{{ dbt_deid.ident(q ~ '__true') }} as {{ dbt_deid.ident(q ~ '__earlier') }}
      , case when s.deid_in_previous = 1 then s.{{ dbt_deid.ident(q ~ '__previous') }} else s.{{ dbt_deid.ident(q ~ '__revealed') }} end as {{ dbt_deid.ident(q ~ '__published') }}
      , s.{{ dbt_deid.ident(q ~ '__revealed') }} as {{ dbt_deid.ident(q ~ '__revealed') }}
      {%- endfor %}
      {%- if long %}
      , case when s.deid_state_rank = 1 then h.deid_history end as deid_history
    from deid_states as s
    left join deid_held_history as h on h.record_key = s.record_key
      {%- else %}
      , case when s.deid_state_rank = 1 then {% for rid in line.release_ids %}(case when s.{{ dbt_deid.ident('deid_in_' ~ loop.index) }} = 1 then '1' when s.{{ dbt_deid.ident('deid_any_' ~ loop.index) }} = 1 then {{ "'3'" if rid in others else "'2'" }} else '0' end){{ ' || ' if not loop.last }}{% else %}''{% endfor %} end as deid_history
      {%- for rid in line.release_ids %}{% set i = loop.index %}{% for q in qis %}
      , case when s.deid_state_rank = 1 and s.{{ dbt_deid.ident('deid_in_' ~ i) }} = 0 then s.{{ dbt_deid.ident(q ~ '__wa' ~ i) }} end as {{ dbt_deid.ident(q ~ '__was' ~ i) }}
      , case when s.deid_state_rank = 1 then s.{{ dbt_deid.ident(q ~ '__ow' ~ i) }} end as {{ dbt_deid.ident(q ~ '__own' ~ i) }}
      {%- endfor %}{% endfor %}
    from deid_states as s
      {%- endif %}
  )
{%- endmacro %}

{#- The current records (every column of `generalized`) with their keyed record hash
    `deid_record_key` and pair columns. -#}
{% macro refresh_records_sql(cfg, generalized, line) -%}
  {{ return(dbt_deid.own(adapter.dispatch('refresh_records_sql', 'dbt_deid'))(cfg, generalized, line)) }}
{%- endmacro %}

{% macro default__refresh_records_sql(cfg, generalized, line) -%}
  with {{ dbt_deid._refresh_states_ctes(cfg, line) }},
  deid_current as (
    select g.*, {{ dbt_deid.keyed_record_hash_sql('g.' ~ dbt_deid.ident(cfg.record_id), 'k') }} as deid_record_key
    from {{ generalized }} as g
    cross join {{ line.key }} as k
  )
  select c.*
    {%- for s in ['__earlier', '__published', '__revealed'] %}{% for q in cfg.qi_names %}, e.{{ dbt_deid.ident(q ~ s) }}{% endfor %}{% endfor %}, e.deid_history
  from deid_current as c
  left join deid_earlier as e on e.record_key = c.deid_record_key and e.deid_state_rank = 1
{%- endmacro %}

{#- The pairs (dbt_deid.living.pairs): current records grouped, and the states no longer
    current (not the latest state of a current record) with null current values. -#}
{% macro refresh_pairs_sql(cfg, generalized, line) -%}
  {{ return(dbt_deid.own(adapter.dispatch('refresh_pairs_sql', 'dbt_deid'))(cfg, generalized, line)) }}
{%- endmacro %}

{% macro default__refresh_pairs_sql(cfg, generalized, line) -%}
  {%- set cols = [] -%}{%- for c in dbt_deid.refresh_pair_columns(cfg) -%}{%- do cols.append(dbt_deid.ident(c)) -%}{%- endfor -%}
  {%- set long = dbt_deid._refresh_pairs_long(cfg, line) -%}
  {#- wide form: per release, the detail the linked guard reads (dbt_deid.living.pairs.history_detail_columns) -#}
  {%- set detail = [] -%}
  {%- if not long -%}
  {%- for rid in line.release_ids -%}{%- set i = loop.index -%}{%- for q in cfg.qi_names -%}{%- do detail.extend([q ~ '__was' ~ i, q ~ '__own' ~ i]) -%}{%- endfor -%}{%- endfor -%}
  {%- endif -%}
  {%- set s = dbt.type_string() -%}
  with {{ dbt_deid._refresh_states_ctes(cfg, line) }},
  deid_current as (
    select {{ dbt_deid.keyed_record_hash_sql('g.' ~ dbt_deid.ident(cfg.record_id), 'k') }} as deid_record_key
      {%- for q in cfg.qi_names %}, g.{{ dbt_deid.ident(q) }}{% endfor %}
    from {{ generalized }} as g
    cross join {{ line.key }} as k
  ),
  deid_pair_rows as (
    select {% if long %}c.deid_record_key, {% endif %}{% for q in cfg.qi_names %}c.{{ dbt_deid.ident(q) }}, {% endfor %}
      {%- for s2 in ['__earlier', '__published', '__revealed'] %}{% for q in cfg.qi_names %}e.{{ dbt_deid.ident(q ~ s2) }}, {% endfor %}{% endfor %}e.deid_history
      {%- for d in detail %}, e.{{ dbt_deid.ident(d) }}{% endfor %}
    from deid_current as c
    left join deid_earlier as e on e.record_key = c.deid_record_key and e.deid_state_rank = 1
    union all
    select {% if long %}cast(null as {{ s }}), {% endif %}{% for q in cfg.qi_names %}cast(null as {{ s }}), {% endfor %}
      {%- for s2 in ['__earlier', '__published', '__revealed'] %}{% for q in cfg.qi_names %}e.{{ dbt_deid.ident(q ~ s2) }}, {% endfor %}{% endfor %}cast(null as {{ s }})
      {%- for d in detail %}, cast(null as {{ s }}){% endfor %}
    from deid_earlier as e
    where e.deid_state_rank > 1
       or not exists (select 1 from deid_current as c where c.deid_record_key = e.record_key)
  )
  {%- if not long %}
  select {{ cols | join(', ') }}
    {%- for d in detail %}, min({{ dbt_deid.ident(d) }}) as {{ dbt_deid.ident(d ~ '_min') }}, max({{ dbt_deid.ident(d) }}) as {{ dbt_deid.ident(d ~ '_max') }}{% endfor %}, count(*) as n
  from deid_pair_rows
  group by {{ cols | join(', ') }}
  {%- else %}
  {#- long form (review 12 final L2: the width does not grow with the stored releases): the
      pairs rows, then the detail rows (dbt_deid.living.pairs.DETAIL): per pairs row and
      stored release holding one of its records, the smallest and largest of its records'
      true values there where the release holds another state than the latest
      (`<qi>__was_min`, `_max`) and own cells there (`<qi>__own_min`, `_max`), folded over the
      releases with the same values into one row: its pairs row's key, `deid_detail_releases`
      (one character per release of `line.release_ids`, '1' where these are the values) and
      n = 0. Grouped by release, so a (record, release) row stored twice is read once. -#}
  , deid_detail as (
    select {% for c in cols %}p.{{ c }}, {% endfor %}d.deid_release
      {%- for q in cfg.qi_names %}
      , min(case when d.deid_latest = 0 then d.{{ dbt_deid.ident(q ~ '__true') }} end) as {{ dbt_deid.ident(q ~ '__was_min') }}
      , max(case when d.deid_latest = 0 then d.{{ dbt_deid.ident(q ~ '__true') }} end) as {{ dbt_deid.ident(q ~ '__was_max') }}
      , min(d.{{ dbt_deid.ident(q ~ '__cell') }}) as {{ dbt_deid.ident(q ~ '__own_min') }}
      , max(d.{{ dbt_deid.ident(q ~ '__cell') }}) as {{ dbt_deid.ident(q ~ '__own_max') }}
      {%- endfor %}
    from deid_pair_rows as p
    inner join deid_held as d on d.record_key = p.deid_record_key
    group by {% for c in cols %}p.{{ c }}, {% endfor %}d.deid_release
  )
  {%- set long_detail = [] -%}
  {%- for q in cfg.qi_names -%}{%- for w in ['__was', '__own'] -%}{%- do long_detail.extend([dbt_deid.ident(q ~ w ~ '_min'), dbt_deid.ident(q ~ w ~ '_max')]) -%}{%- endfor -%}{%- endfor %}
  select {{ cols | join(', ') }}, cast(null as {{ s }}) as deid_detail_releases
    {%- for d in long_detail %}, cast(null as {{ s }}) as {{ d }}{% endfor %}, count(*) as n
  from deid_pair_rows
  group by {{ cols | join(', ') }}
  union all
  select {{ cols | join(', ') }}
    , {% for rid in line.release_ids %}max(case when deid_release = {{ loop.index }} then '1' else '0' end){{ ' || ' if not loop.last }}{% else %}''{% endfor %} as deid_detail_releases
    {%- for d in long_detail %}, {{ d }}{% endfor %}, 0 as n
  from deid_detail
  group by {{ cols | join(', ') }}{% for d in long_detail %}, {{ d }}{% endfor %}
  {%- endif %}
{%- endmacro %}

{#- deid_patterns as its readers (risk summary, diagnostics) expect it: one row per current QI
    tuple with its count. When deid_patterns holds the pairs of a refresh, the current tuples
    regrouped (the rows of states no longer current left out); when it holds the sensitive
    values of attribute_disclosure.remedy (a row per QI pattern x sensitive tuple), the QI
    patterns regrouped; else the relation itself. -#}
{% macro current_patterns(cfg, patterns) -%}
  {%- if not execute or not dbt_deid.can_inspect(patterns) -%}{{ return(patterns) }}{%- endif -%}
  {%- set have = adapter.get_columns_in_relation(patterns) | map(attribute='name') | map('lower') | list -%}
  {%- set cols = [] -%}{%- for q in cfg.qi_names -%}{%- do cols.append(dbt_deid.ident(q)) -%}{%- endfor -%}
  {%- if (cfg.qi_names[0] ~ '__earlier') | lower not in have -%}
    {%- if cfg.sensitive and (cfg.sensitive[0] | lower) in have -%}
      {{ return('(select ' ~ cols | join(', ') ~ ', sum(n) as n from ' ~ patterns ~ ' group by ' ~ cols | join(', ') ~ ')') }}
    {%- endif -%}
    {{ return(patterns) }}
  {%- endif -%}
  {#- the pairs rows only (long form: a detail row, `deid_detail_releases` not null, repeats its pairs row's key with n = 0) -#}
  {{ return('(select ' ~ cols | join(', ') ~ ', sum(n) as n from ' ~ patterns ~ ' where ' ~ cols[0] ~ ' is not null' ~ (' and deid_detail_releases is null' if 'deid_detail_releases' in have else '') ~ ' group by ' ~ cols | join(', ') ~ ')') }}
{%- endmacro %}

{#- The line's story of a candidate version (the history's `line_json`, issue 32 item 4): the
    previous version it extends, records added (never published), returned (published before,
    not in the previous version), deleted (in the previous version, not now), changed (true
    values changed since the previous version) and kept, and the kept records' cells newly
    suppressed (rows and cells). Counts only. None when the line has no version yet.
    `records_shared`: the current records found among the line's stored rows (any version),
    the gate's records shared, taken from this pass (session 15: at 2.4 million records the
    gate's own count hashed every record id again, 6 s); the gate leaves it out of the
    history's line_json. `states`: the line's states table (line_states_sql, built once by the
    gate: session 16, the story read from it, no join of the candidate with the store), else
    the story joins them (line_story_sql); `previous`: the line's previous version when the
    caller has it. -#}
{% macro line_story(cfg, truth, key, store, states=none, previous=none) -%}
  {%- set previous = previous or dbt_deid.line_previous_release(cfg, store) -%}
  {%- if previous is none -%}{{ return(none) }}{%- endif -%}
  {%- set sql = dbt_deid.line_story_states_sql(cfg, states) if states is not none else dbt_deid.line_story_sql(cfg, truth, key, store, previous) -%}
  {%- set r = run_query(sql).rows[0] -%}
  {{ return({'extends_version': previous.version, 'extends_release': previous.name, 'records_added': (r[0] or 0) | int, 'records_returned': (r[1] or 0) | int,
             'records_deleted': (r[2] or 0) | int, 'records_changed': (r[3] or 0) | int, 'records_kept': (r[4] or 0) | int,
             'kept_rows_newly_suppressed': (r[5] or 0) | int, 'kept_cells_newly_suppressed': (r[6] or 0) | int,
             'records_shared': (r[7] or 0) | int}) }}
{%- endmacro %}

{#- The story's counts (added, returned, deleted, changed, kept, kept rows and cells newly
    suppressed, records shared), joining the candidate with the line's stored rows. -#}
{% macro line_story_sql(cfg, truth, key, store, previous) -%}
  {%- set qis = cfg.released_qis -%}
  {%- set differs = [] -%}{%- set newly = [] -%}
  {%- for q in qis -%}
    {%- do differs.append('c.' ~ dbt_deid.ident(q ~ '__t') ~ ' <> p.' ~ dbt_deid.ident(q ~ '__t')) -%}
    {%- do newly.append('case when p.' ~ dbt_deid.ident(q ~ '__c') ~ ' is not null and c.' ~ dbt_deid.ident(q ~ '__c') ~ ' is null then 1 else 0 end') -%}
  {%- endfor -%}
  {%- set kept = 'c.record_key is not null and p.record_key is not null and not (' ~ differs | join(' or ') ~ ')' -%}
    with cur as (
      select {{ dbt_deid.keyed_record_hash_sql('t.' ~ dbt_deid.ident(cfg.record_id), 'k') }} as record_key
        {%- for q in qis %}, t.{{ dbt_deid.ident(q) }} as {{ dbt_deid.ident(q ~ '__c') }}, t.{{ dbt_deid.ident(q ~ '__generalized') }} as {{ dbt_deid.ident(q ~ '__t') }}{% endfor %}
      from {{ truth }} as t cross join {{ key }} as k
    ),
    st as (
      select record_key, release_version, release_id
        {%- for q in qis %}, {{ dbt_deid.ident(q) }} as {{ dbt_deid.ident(q ~ '__c') }}, coalesce({{ dbt_deid.ident(q ~ '__generalized') }}, {{ dbt_deid.ident(q) }}) as {{ dbt_deid.ident(q ~ '__t') }}{% endfor %}
      from {{ store }} where {{ dbt_deid.line_rows_condition(cfg) }}
    ),
    prev as (select * from st where release_id = {{ dbt_deid.literal(previous.release_id) }}),
    ever as (select distinct record_key from st)
    select
      sum(case when c.record_key is not null and e.record_key is null then 1 else 0 end),
      sum(case when c.record_key is not null and e.record_key is not null and p.record_key is null then 1 else 0 end),
      sum(case when c.record_key is null then 1 else 0 end),
      sum(case when c.record_key is not null and p.record_key is not null and ({{ differs | join(' or ') }}) then 1 else 0 end),
      sum(case when {{ kept }} then 1 else 0 end),
      sum(case when {{ kept }} and ({{ newly | join(' + ') }}) > 0 then 1 else 0 end),
      sum(case when {{ kept }} then {{ newly | join(' + ') }} else 0 end),
      count(distinct case when c.record_key is not null and e.record_key is not null then c.record_key end)
    from cur as c
    full outer join prev as p on p.record_key = c.record_key
    left join ever as e on e.record_key = c.record_key
{%- endmacro %}

{#- line_story_sql's counts read from the line's states (dbt_deid.line_states_sql, built once
    by the gate combined_releases with the previous version's flags). A record of one state
    (`deid_changed_any` = 0, all but the changed records) is read in its one row; the records
    of several states are grouped by record key. Changed: the candidate's state and the
    previous version's differ on a QI where both true values are known (`<>`, as the join
    compares them); kept: both hold the same state with every true value known (the join's
    `not (... <> ...)` is true only then), its cells newly suppressed the bits of the previous
    version's cells that the candidate suppresses (a record id is unique in the candidate, a
    record stored once per release: one candidate row and one previous row per state). No
    record id hashed, the store not read. -#}
{% macro line_story_states_sql(cfg, states) -%}
  {%- set qis = cfg.released_qis -%}
  {%- set I = dbt_deid.ident -%}
  {%- set differs = [] -%}{%- set known = [] -%}{%- set newly = [] -%}
  {%- for q in qis -%}
    {%- do differs.append('c.' ~ I(q ~ '__generalized') ~ ' <> p.' ~ I(q ~ '__generalized')) -%}
    {%- do known.append(I(q ~ '__generalized') ~ ' is not null') -%}
    {%- set bit = 2 ** loop.index0 -%}
    {%- do newly.append('(case when deid_prev_cells % ' ~ 2 * bit ~ ' >= ' ~ bit ~ ' and deid_cand_nulls % ' ~ 2 * bit ~ ' >= ' ~ bit ~ ' then 1 else 0 end)') -%}
  {%- endfor -%}
    with several as (
      select max(deid_cand) as deid_cand, max(deid_stored) as deid_stored, max(deid_prev) as deid_prev
      from {{ states }}
      where deid_changed_any = 1
      group by record_key
    ),
    records as (
      select deid_cand, deid_stored, deid_prev from {{ states }} where deid_changed_any = 0
      union all
      select deid_cand, deid_stored, deid_prev from several
    ),
    kept as (
      select {{ newly | join(' + ') }} as newly
      from {{ states }}
      where deid_cand = 1 and deid_prev = 1 and {{ known | join(' and ') }}
    ),
    changed as (
      select count(*) as n
      from {{ states }} as c
      join {{ states }} as p on p.record_key = c.record_key
      where c.deid_cand = 1 and c.deid_changed_any = 1 and p.deid_prev = 1 and p.deid_changed_any = 1
        and ({{ differs | join(' or ') }})
    ),
    counts as (
      select
        sum(case when deid_cand = 1 and deid_stored = 0 then 1 else 0 end) as added,
        sum(case when deid_cand = 1 and deid_stored = 1 and deid_prev = 0 then 1 else 0 end) as returned,
        sum(case when deid_cand = 0 and deid_prev = 1 then 1 else 0 end) as deleted,
        sum(case when deid_cand = 1 and deid_stored = 1 then 1 else 0 end) as shared
      from records
    )
    select r.added, r.returned, r.deleted, (select n from changed),
      (select count(*) from kept), (select sum(case when newly > 0 then 1 else 0 end) from kept), (select sum(newly) from kept),
      r.shared
    from counts as r
{%- endmacro %}

{#- The history's `line_json` of a release attempt: the line (release name, epoch, source,
    record id column, the `restart` reason when set), the story of the version against the one
    it extends (line_story, from the gate combined_releases), the combined view's smallest
    class and consistent set per combination, and the fingerprint of the key that keyed its
    records (`key_check`, never the key; store_integrity_problems compares it). -#}
{% macro line_manifest(combined, release) -%}
  {%- set cfg = dbt_deid.release_config() -%}
  {%- set restart = release.get('restart') -%}
  {%- set out = {'release_name': cfg.name, 'epoch': dbt_deid.line_epoch(), 'source': dbt_deid.line_source(cfg),
                 'record_id': cfg.record_id, 'restart_reason': restart.get('reason') if restart is mapping else none,
                 'combined': combined.get('combined_figures'), 'key_check': combined.get('key_check')} -%}
  {%- do out.update(combined.get('line') or {'extends_version': none}) -%}
  {{ return(out) }}
{%- endmacro %}

{#- A store written before the line columns existed gets them (NULL in its rows: the line of
    epoch '', source and record id column unknown, package version unknown, key fingerprint
    unknown: store_integrity_problems cannot check those rows' key). -#}
{% macro ensure_store_line_columns(store) -%}
  {%- set have = adapter.get_columns_in_relation(store) | map(attribute='name') | map('lower') | list -%}
  {%- for name in ['line_epoch', 'record_id_column', 'source_relation', 'package_version', 'key_check'] -%}
    {%- if name not in have -%}
      {% call statement('deid_records_line_' ~ name) -%}alter table {{ store }} add column {{ dbt_deid.ident(name) }} {{ dbt.type_string() }}{%- endcall %}
    {%- endif -%}
  {%- endfor -%}
{%- endmacro %}
