{#- Repeated releases cannot be combined against the guarantee (issue 17, item 3).

    A recipient holding two releases of the same records can take, for each record, the cells
    revealed by either: a cell suppressed in one release and published in the other is revealed.
    The guarantee of El Emam et al. 2011 (El Emam et al., "Measuring the Probability of Re-identification":
    every record's true values are consistent with at least k released records, a suppressed
    cell being consistent with anything) must then hold for the combined view, not only for each
    release alone.

    * The per-record store (deid_release_records, in the WORKING schema, next to
      deid_gate_results: it holds true values at the released levels, never the published
      schema): one row per record of every published release, keyed by a keyed hash of the
      record id (md5 of a random key and the id; the key is generated in the warehouse, kept in
      deid_history_key, and never appears in SQL text, logs or target/).
    * The gate combined_releases, run on every publish candidate: when earlier published
      releases of the same source (any release name: combined_lines.sql, issue 32 item 2)
      share records with it, the combined view (per record
      key, the revealed cells of every release) goes through the exact check
      (dbt_deid.exact_risk_summary_sql, the SQL of the exact gate) and the gate fails when a
      record is consistent with fewer than k rows of it. Releases at other levels of the same
      hierarchies are combined at mixed levels (combined_levels_view_sql,
      exact_levels_summary_sql).
    * The store is written by the publish materialization after the swap (a refused release
      writes nothing to it). -#}

{#- The store and the key: relations in the working schema (the schema of `truth`,
    the checked release), ONE of each per project (per working schema): every release of the
    project, the default one and every extra one of var('deid_releases'), writes its rows to
    the same store, keyed with the same key, so releases of one source are linked record by
    record whatever their names (issue 32, item 2: what is combined is the source's records,
    not a release name). Before, each extra release had its own store and key
    (`<release>__deid_release_records`, `<release>__deid_history_key`): records keyed with two
    keys cannot be linked, so such a store is never read as part of a line; the gate refuses
    while one holds rows of the line (legacy_release_stores). The store, the key and the store's
    columns are created by the on-run-start hook prepare_release_tables before any publish
    model runs
    (ensure_release_stores), so publish models running at once on several threads only ever
    append to the store. -#}
{% macro release_records_relation(truth) -%}
  {{ return(api.Relation.create(database=truth.database, schema=truth.schema, identifier='deid_release_records', type='table')) }}
{%- endmacro %}

{% macro history_key_relation(truth) -%}
  {{ return(api.Relation.create(database=truth.database, schema=truth.schema, identifier='deid_history_key', type='table')) }}
{%- endmacro %}

{#- The per-release store and key an extra release wrote before one store per project
    (`<release>__deid_release_records`, `<release>__deid_history_key`), in the schema of
    `truth`: [{release, store, key}] for every release name of var('deid_releases') whose old
    store exists there. -#}
{% macro legacy_release_stores(truth) -%}
  {%- set out = [] -%}
  {%- for name in dbt_deid.extra_releases().keys() | sort -%}
    {%- set store = api.Relation.create(database=truth.database, schema=truth.schema, identifier=name ~ '__deid_release_records', type='table') -%}
    {%- if adapter.get_relation(store.database, store.schema, store.identifier) is not none -%}
      {%- do out.append({'release': name, 'store': store,
          'key': api.Relation.create(database=truth.database, schema=truth.schema, identifier=name ~ '__deid_history_key', type='table')}) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(out) }}
{%- endmacro %}

{#- The refusals for the old per-release stores holding rows of this release's line (its name,
    or the same source, in the line's epoch): their records are keyed with another key, so they
    cannot be linked with the project's store; never read, never dropped, never ignored. A
    list of messages (table names and counts only). -#}
{% macro legacy_store_problems(cfg, truth) -%}
  {%- set out = [] -%}
  {%- for old in dbt_deid.legacy_release_stores(truth) -%}
    {%- set have = adapter.get_columns_in_relation(old.store) | map(attribute='name') | map('lower') | list -%}
    {%- set epoch = "coalesce(line_epoch, '')" if 'line_epoch' in have else "''" -%}
    {%- set source = "source_relation" if 'source_relation' in have else "cast(null as " ~ dbt.type_string() ~ ")" -%}
    {#- rows of the line by their records too (the old store's own key hashes this source's
        record ids as it hashed them; a relation renamed since is still the line), or, when
        that key is gone, every row without a recorded source (fail closed) -#}
    {%- set here = dbt_deid._line_records_relation(cfg) -%}
    {%- set old_key = adapter.get_relation(old.key.database, old.key.schema, old.key.identifier) -%}
    {%- set by_records = "" -%}
    {%- if old_key is not none and here is not none and cfg.get('record_id') and adapter.get_relation(here.database, here.schema, here.identifier) is not none -%}
      {%- set by_records = " or record_key in (select " ~ dbt_deid.keyed_record_hash_sql('s.' ~ dbt_deid.ident(cfg.record_id), 'k') ~ " from " ~ here ~ " as s cross join " ~ old.key ~ " as k)" -%}
    {%- elif old_key is none -%}
      {%- set by_records = " or " ~ source ~ " is null" -%}
    {%- endif -%}
    {%- set n = run_query("select count(*) from " ~ old.store ~ " where " ~ epoch ~ " = " ~ dbt_deid.literal(dbt_deid.line_epoch())
          ~ " and (release_name = " ~ dbt_deid.literal(cfg.name) ~ " or " ~ source ~ " = " ~ dbt_deid.literal(dbt_deid.line_source(cfg)) ~ by_records ~ ")").rows[0][0] | int -%}
    {%- if n > 0 -%}
      {%- do out.append("the per-record store " ~ old.store ~ " (release " ~ old.release ~ "'s own store, written before dbt_deid kept one store per project) holds " ~ n ~ " row(s) of this line keyed with its own key " ~ old.key ~ ", which cannot be linked with the project's store " ~ dbt_deid.release_records_relation(truth)) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(out) }}
{%- endmacro %}

{#- prepare_release_tables (on-run-start): the project's store and key in the working schema of every
    release (one of each per schema), before any publish model runs. A store missing is
    created with the columns of every declared release's released QIs (a store that exists
    gets the columns it lacks), and the key with it; a key is never created next to a store
    that exists without one (its rows could no longer be matched: the gate refuses, naming
    it). -#}
{% macro ensure_release_stores() -%}
  {%- set raws = [] -%}
  {%- if var('deid_release', none) is mapping -%}{%- do raws.append((none, var('deid_release'))) -%}{%- endif -%}
  {%- for name, raw in dbt_deid.extra_releases().items() | sort -%}{%- do raws.append((name, raw)) -%}{%- endfor -%}
  {%- set by_schema = {} -%}{%- set order = [] -%}
  {%- for name, raw in raws -%}
    {%- set gate = dbt_deid._graph_relation('deid_gate_results' if name is none else name ~ '__deid_gate_results') -%}
    {%- if gate is not none -%}
      {%- set where = gate.database ~ '.' ~ gate.schema -%}
      {%- if where not in by_schema -%}{%- do order.append(where) -%}{%- do by_schema.update({where: {'gate': gate, 'columns': [], 'sources': []}}) -%}{%- endif -%}
      {%- if raw is mapping and raw.get('source') -%}{%- do by_schema[where].sources.append(dbt_deid.line_source({'source': raw.source})) -%}{%- endif -%}
      {#- every quasi-identifier the release declares (its released ones among them), read
          from the settings: the release's config needs its plan, not built yet here -#}
      {%- set qis = (raw.get('quasi_identifiers') or {}).keys() | list if raw is mapping else [] -%}
      {%- for column in dbt_deid.release_records_columns({'released_qis': qis}) -%}
        {%- if column[0] | lower not in by_schema[where].columns | map(attribute=0) | map('lower') | list -%}{%- do by_schema[where].columns.append(column) -%}{%- endif -%}
      {%- endfor -%}
    {%- endif -%}
  {%- endfor -%}
  {%- for where in order -%}
    {%- do dbt_deid.ensure_release_store(by_schema[where].gate, by_schema[where].columns) -%}
    {#- a lock row for every source the store holds too: a release over a view or a copy of a
        source locks the rows of the sources whose releases share its records -#}
    {%- set store = dbt_deid.release_records_relation(by_schema[where].gate) -%}
    {%- do dbt_deid.ensure_store_line_columns(store) -%}
    {%- for r in run_query("select distinct source_relation from " ~ store ~ " where source_relation is not null").rows -%}
      {%- do by_schema[where].sources.append(r[0]) -%}
    {%- endfor -%}
    {%- do dbt_deid.ensure_line_locks(by_schema[where].gate, by_schema[where].sources) -%}
  {%- endfor -%}
{%- endmacro %}

{#- The store next to `truth` with (at least) `columns`, and its key when the store is new. -#}
{% macro ensure_release_store(truth, columns) -%}
  {{ return(dbt_deid.own(adapter.dispatch('ensure_release_store', 'dbt_deid'))(truth, columns)) }}
{%- endmacro %}

{% macro default__ensure_release_store(truth, columns) -%}
  {%- set store = dbt_deid.release_records_relation(truth) -%}
  {%- set found = adapter.get_relation(store.database, store.schema, store.identifier) -%}
  {%- if found is none -%}
    {%- do dbt_deid.create_schema_if_missing(store) -%}
    {%- do dbt_deid.history_key(truth, create=true) -%}
    {% call statement('deid_records_create') -%}
      create table if not exists {{ store }} (
        {%- for name, type in columns %}
        {{ dbt_deid.ident(name) }} {{ type }}{{ ',' if not loop.last }}
        {%- endfor %}
      )
    {%- endcall %}
    {#- later nodes of this invocation find it (a raw `create` is not in dbt's relation cache:
        the gate would find no store, and no earlier release to combine) -#}
    {%- do adapter.cache_added(store) -%}
  {%- else -%}
    {%- set have = adapter.get_columns_in_relation(found) | map(attribute='name') | map('lower') | list -%}
    {%- for name, type in columns -%}
      {%- if name | lower not in have -%}
        {% call statement('deid_records_add_' ~ loop.index) -%}alter table {{ store }} add column {{ dbt_deid.ident(name) }} {{ type }}{%- endcall %}
      {%- endif -%}
    {%- endfor -%}
  {%- endif -%}
{%- endmacro %}

{#- SQL for a fresh random key (at least 244 random bits: two version-4 UUIDs), evaluated in
    the warehouse so the key is never in SQL text. -#}
{% macro random_key_sql() -%}
  {{ return(dbt_deid.own(adapter.dispatch('random_key_sql', 'dbt_deid'))()) }}
{%- endmacro %}

{#- DuckDB and PostgreSQL (13+) both have gen_random_uuid(). -#}
{% macro default__random_key_sql() -%}
  {{ return(dbt.concat(['cast(gen_random_uuid() as ' ~ dbt.type_string() ~ ')', 'cast(gen_random_uuid() as ' ~ dbt.type_string() ~ ')'])) }}
{%- endmacro %}

{% macro spark__random_key_sql() -%}
  {{ return('concat(uuid(), uuid())') }}
{%- endmacro %}

{#- The keyed hash of a record id: md5(key || '|' || id) with the key read from `key_alias`
    (a row of deid_history_key joined into the query), so the key is never written into SQL. -#}
{% macro keyed_record_hash_sql(id_expression, key_alias) -%}
  {{ return(dbt_deid.own(adapter.dispatch('keyed_record_hash_sql', 'dbt_deid'))(id_expression, key_alias)) }}
{%- endmacro %}

{% macro default__keyed_record_hash_sql(id_expression, key_alias) -%}
  {{ return(dbt.hash(dbt.concat([key_alias ~ '.key_value', "'|'", dbt_deid.record_id_text_sql(id_expression)]))) }}
{%- endmacro %}

{#- The record id's canonical text, hashed into the record key (review 8, F4): its text, with
    a fraction of zeros dropped ('7.00' -> '7'), so an id column whose type changes upstream
    (INTEGER -> DECIMAL(18,2), NUMBER(38,0) -> NUMBER(18,2), values unchanged) keeps every
    record's key. An integer id's text is unchanged (stores written before keep their keys); a
    fractional id keeps its text ('1.5' and '1.50' stay two records: refused by the gate when
    no record is shared, combined_releases); a text id of that shape ('A-1.0') is read as
    'A-1' (two such ids are combined: errs towards refusing). Floating-point ids are refused
    (assert_record_id_type). -#}
{% macro record_id_text_sql(id_expression) -%}
  {{ return(dbt_deid.own(adapter.dispatch('record_id_text_sql', 'dbt_deid'))(id_expression)) }}
{%- endmacro %}

{% macro default__record_id_text_sql(id_expression) -%}
  {%- set s = 'cast(' ~ id_expression ~ ' as ' ~ dbt.type_string() ~ ')' -%}
  {%- set whole = dbt.split_part(s, "'.'", 1) -%}
  {%- set fraction = dbt.split_part(s, "'.'", 2) -%}
  {{ return("(case when " ~ s ~ " like '%.%' and " ~ s ~ " not like '%.%.%' and replace(" ~ fraction ~ ", '0', '') = '' then " ~ whole ~ " else " ~ s ~ " end)") }}
{%- endmacro %}

{#- The key relation, created with one fresh random key when absent (`create`), or none when
    absent and not created. A key table with other than one row fails closed. -#}
{% macro history_key(truth, create=false) -%}
  {{ return(dbt_deid.own(adapter.dispatch('history_key', 'dbt_deid'))(truth, create)) }}
{%- endmacro %}

{% macro default__history_key(truth, create=false) -%}
  {%- set rel = dbt_deid.history_key_relation(truth) -%}
  {%- if adapter.get_relation(rel.database, rel.schema, rel.identifier) is none -%}
    {%- if not create -%}{{ return(none) }}{%- endif -%}
    {% call statement('deid_history_key_create') -%}
      create table {{ rel }} (key_value {{ dbt.type_string() }}, created_at {{ dbt.type_string() }})
    {%- endcall %}
    {% call statement('deid_history_key_insert') -%}
      insert into {{ rel }} (key_value, created_at)
      select {{ dbt_deid.random_key_sql() }}, {{ dbt_deid.literal(modules.datetime.datetime.utcnow().strftime('%Y-%m-%dT%H:%M:%SZ')) }}
    {%- endcall %}
    {%- do adapter.cache_added(rel) -%}
  {%- endif -%}
  {%- set n = run_query('select count(*) from ' ~ rel).rows[0][0] -%}
  {%- if n != 1 -%}
    {{ exceptions.raise_compiler_error("model " ~ this.identifier ~ ": " ~ rel ~ " must hold exactly one key row, it holds " ~ n ~ "; the record keys of earlier releases cannot be recomputed without it (restore it from a backup, never edit it)") }}
  {%- endif -%}
  {{ return(rel) }}
{%- endmacro %}

{#- The store's columns: release identity, the keyed record hash, then per released QI the
    published cell `<qi>` (NULL = suppressed) and the true value at the released level
    `<qi>__generalized`, written only where it differs from the published cell (NULL where they
    are equal: every cell that is not suppressed, in a release made by the package). The true
    value is coalesce(`<qi>__generalized`, `<qi>`), which also reads the rows of stores written
    before (the true value in every row). -#}
{% macro release_records_columns(cfg) -%}
  {%- set s = dbt.type_string() -%}
  {%- set cols = [('release_name', s), ('release_id', s), ('release_version', dbt.type_bigint()), ('invocation_id', s),
                  ('published_relation', s), ('record_key', s),
                  ('line_epoch', s), ('record_id_column', s), ('source_relation', s), ('package_version', s), ('key_check', s)] -%}
  {%- for q in cfg.released_qis -%}
    {%- do cols.append((q, s)) -%}{%- do cols.append((q ~ '__generalized', s)) -%}
  {%- endfor -%}
  {{ return(cols) }}
{%- endmacro %}

{#- The released level of every QI as what must be equal for two releases to be combined cell
    by cell: {qi: {level, hierarchy, rule, column, missing_label}} (the level OLA chose, when
    `generalization.search: ola`). -#}
{% macro released_level_specs(cfg) -%}
  {%- set levels = dbt_deid._chosen_levels() -%}
  {%- set out = {} -%}
  {%- for q in cfg.qis -%}
    {%- if q.name in cfg.released_qis -%}
      {%- do out.update({q.name: {'level': levels.get(q.name, q.level), 'hierarchy': q.hierarchy, 'rule': q.rule,
                                  'column': q.column, 'missing_label': cfg.missing_label}}) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(out) }}
{%- endmacro %}

{#- dbt_deid.released_levels() without ref(): the publish materialization runs this, and
    deid_published does not depend on deid_ola_levels directly (a ref() to a node the model does
    not depend on fails at run time). {} unless `generalization.search: ola`. -#}
{% macro _chosen_levels() -%}
  {%- if dbt_deid.ola_config() is none -%}{{ return({}) }}{%- endif -%}
  {%- set name = dbt_deid.release_node_name('deid_ola_levels') -%}
  {%- set node = (graph.nodes.values() | selectattr('resource_type', 'equalto', 'model') | selectattr('name', 'equalto', name) | list)[0] -%}
  {%- set rel = api.Relation.create(database=node.database, schema=node.schema, identifier=node.alias or node.name) -%}
  {%- set out = {} -%}
  {%- for r in run_query("select qi_name, level from " ~ rel).rows -%}
    {%- if r[1] is not none -%}{%- do out.update({r[0]: r[1] | int}) -%}{%- endif -%}
  {%- endfor -%}
  {{ return(out) }}
{%- endmacro %}

{#- Append the records of a published release to the store (created when absent; columns of
    QIs new to this release are added). Called by the publish materialization after the
    published table was swapped in, just before its history row is written (record_release, in
    the publish transaction), so only published releases are stored. `truth` is the checked
    release (record id, `<qi>`, `<qi>__generalized`); `version` the release's version (read
    from its history row when none). Returns the check of the rows written (stored_rows_check:
    their fingerprint over every column written), which the history row records in line_json's
    `store_check` (review 19, F2: macros/gates/stored_rows_check.sql). -#}
{% macro record_release_records(cfg, truth, target_relation, release_id, version=none) -%}
  {{ return(dbt_deid.own(adapter.dispatch('record_release_records', 'dbt_deid'))(cfg, truth, target_relation, release_id, version)) }}
{%- endmacro %}

{% macro default__record_release_records(cfg, truth, target_relation, release_id, version=none) -%}
  {%- set store = dbt_deid.release_records_relation(truth) -%}
  {%- set found = adapter.get_relation(store.database, store.schema, store.identifier) -%}
  {%- if found is not none and dbt_deid.history_key(truth) is none -%}
    {{ exceptions.raise_compiler_error("model " ~ this.identifier ~ ": " ~ store ~ " exists but its key table " ~ dbt_deid.history_key_relation(truth) ~ " is missing; the record keys cannot be recomputed (restore the key from a backup)") }}
  {%- endif -%}
  {#- created (with the key) when absent: the publish model ran without
      the hook prepare_release_tables; the columns of QIs new to this release added -#}
  {%- set columns = dbt_deid.release_records_columns(cfg) -%}
  {%- do dbt_deid.ensure_release_store(truth, columns) -%}
  {%- do dbt_deid.ensure_store_line_columns(store) -%}
  {%- set key = dbt_deid.history_key(truth) -%}
  {%- set history = api.Relation.create(database=target_relation.database, schema=target_relation.schema, identifier='deid_release_history', type='table') -%}
  {%- if version is none -%}
    {%- set version = run_query("select release_version from " ~ history ~ " where release_id = " ~ dbt_deid.literal(release_id)).rows[0][0] -%}
  {%- endif -%}
  {%- set names = [] -%}{%- set values = [] -%}
  {%- for name, type in columns[:11] -%}{%- do names.append(dbt_deid.ident(name)) -%}{%- endfor -%}
  {%- for q in cfg.released_qis -%}
    {%- do names.append(dbt_deid.ident(q)) -%}{%- do values.append('t.' ~ dbt_deid.ident(q)) -%}
    {#- the true value only where it is not the published cell (suppressed, mostly): the reader
        takes coalesce(true, published) (combined_view_sql). At 24 million records the true
        columns were half the store's text: 30-31 s -> 26 s to write it alone (issue 18, scratch
        timing) -#}
    {%- do names.append(dbt_deid.ident(q ~ '__generalized')) -%}
    {%- do values.append('case when t.' ~ dbt_deid.ident(q) ~ ' = t.' ~ dbt_deid.ident(q ~ '__generalized') ~ ' then null else t.' ~ dbt_deid.ident(q ~ '__generalized') ~ ' end') -%}
  {%- endfor -%}
  {% call statement('deid_records_insert') -%}
    insert into {{ store }} ({{ names | join(', ') }})
    select {{ dbt_deid.literal(cfg.name) }}, {{ dbt_deid.literal(release_id) }}, {{ version }}, {{ dbt_deid.literal(invocation_id) }},
      {{ dbt_deid.literal(target_relation | string) }}, {{ dbt_deid.keyed_record_hash_sql('t.' ~ dbt_deid.ident(cfg.record_id), 'k') }},
      {{ dbt_deid.literal(dbt_deid.line_epoch()) }}, {{ dbt_deid.literal(cfg.record_id | lower) }}, {{ dbt_deid.literal(dbt_deid.line_source(cfg)) }}, {{ dbt_deid.literal(dbt_deid.package_version()) }},
      {{ dbt_deid.key_check_sql('k') }}
      {%- for v in values %}, {{ v }}{% endfor %}
    from {{ truth }} as t
    cross join {{ key }} as k
  {%- endcall %}
  {#- the key records that this epoch stored published rows: the store, history and published
      table dropped together are still seen (review 8, F7; store_integrity.sql) -#}
  {%- do dbt_deid.record_stored_epoch(key, cfg) -%}
  {#- every column written: the record key and the cells and true values vary by row, the
      others are one value per release (grouped, not hashed: stored_fingerprints) -#}
  {%- set written = columns | map(attribute=0) | list -%}
  {%- set varying = ['record_key'] + written[11:] -%}
  {{ return(dbt_deid.stored_rows_check(store, varying, release_id, written | reject('in', varying) | list)) }}
{%- endmacro %}

{#- The earlier published releases combined with this one as [{release_id, version, name,
    specs}] (deid_release_history, status 'published'), oldest first; [] when there is no
    history: every release of this name, every release of another name whose line (its
    history's line_json) is the same source in the same epoch (combined_lines.sql: what is
    combined is the source's records, not a release name), and every release the store holds
    for the line (`line_ids`), whatever its history's line_json says: the gate reads those
    rows, so each is read with its own recorded levels (issue 32). -#}
{% macro _earlier_releases(cfg, history, line_ids=[]) -%}
  {%- if adapter.get_relation(history.database, history.schema, history.identifier) is none -%}{{ return([]) }}{%- endif -%}
  {%- set have = adapter.get_columns_in_relation(history) | map(attribute='name') | map('lower') | list -%}
  {%- set spec_col = 'released_levels_json' if 'released_levels_json' in have else 'cast(null as ' ~ dbt.type_string() ~ ')' -%}
  {%- set line_col = 'line_json' if 'line_json' in have else 'cast(null as ' ~ dbt.type_string() ~ ')' -%}
  {%- set rows = run_query("select release_id, release_version, " ~ spec_col ~ ", release_name, " ~ line_col ~ ", settings_json, k from " ~ history ~ " where status = 'published' order by recorded_at, release_id").rows -%}
  {%- set source = dbt_deid.line_source(cfg) -%}{%- set epoch = dbt_deid.line_epoch() -%}
  {%- set out = [] -%}
  {%- for r in rows -%}
    {%- set line = fromjson(r[4]) if r[4] else {} -%}
    {%- if r[3] == cfg.name or r[0] in line_ids or (line.get('source') == source and (line.get('epoch') or '') == epoch) -%}
      {%- set settings = fromjson(r[5]) if r[5] else {} -%}
      {%- do out.append({'release_id': r[0], 'version': r[1], 'name': r[3], 'specs': fromjson(r[2]) if r[2] else none,
                         'combinations': settings.get('combinations') if settings is mapping else none, 'k': r[6],
                         'sample': settings.get('sample') if settings is mapping else none,
                         'max_changed_share': dbt_deid._setting(settings if settings is mapping else {}, 'release', 'max_changed_share')}) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(out) }}
{%- endmacro %}

{#- Review 8, F4: a release sharing no record with the line's published versions of this
    epoch (`earlier` whose release id is in `epoch_ids`: the store rows of the same source,
    this epoch) is refused, naming the record id column and `restart`, unless its `sample` is
    disjoint from each of theirs (same seed, slots whose ranges of the hash do not overlap:
    release_input.sql's sample_condition; El Emam et al. 2011's non-overlapping PUMF files).
    The record ids changed (their type or text upstream, a reload renumbering from another
    start) would otherwise make every record look new: recipients would hold each twice. A
    line whose source is replaced by other records each period takes a `restart` each time
    (docs/combined-lines.md, "F4"). A list with one message, else []. -#}
{% macro unshared_line_problems(cfg, earlier, epoch_ids) -%}
  {%- set overlapping = [] -%}
  {%- for e in earlier if e.release_id in epoch_ids -%}
    {%- if not dbt_deid.samples_disjoint(cfg.sample, e.sample) -%}{%- do overlapping.append(e) -%}{%- endif -%}
  {%- endfor -%}
  {%- if overlapping | length == 0 -%}{{ return([]) }}{%- endif -%}
  {{ return(["no record shared with the line's published version(s) " ~ dbt_deid._versions_text(cfg, overlapping) ~ " (same source, this epoch; their samples, if any, not disjoint from this one): the record ids changed (the type or text of the record id column '" ~ cfg.record_id ~ "' upstream, or a reload numbering the records anew), so every record would look new and recipients would hold each twice; keep the record ids stable (restore their type and text), or, if these are really other records, start the line over explicitly with the setting `restart: {reason: '...'}` (audited: written into the history)"]) }}
{%- endmacro %}

{#- Review 18, F3: a sample disjoint from the line's earlier samples (unshared_line_problems'
    exemption) shares no record with them by design, so its own records cannot show that the
    record ids are still the ones the line was keyed by: the source's other slots can. When no
    record of the whole source (every slot, as it is now) is one the line stored, the ids
    changed (their text or type upstream, a renumbering) and the draw of today's ids is a fresh
    random sample of the same people: refused as rule 2 refuses a whole file. Read only when
    the exemption applies (a disjoint slot's first version). A list with one message, else []. -#}
{% macro unshared_source_problems(cfg, earlier, epoch_ids, key, store) -%}
  {%- set in_source = run_query("select count(*) from (select distinct " ~ dbt_deid.keyed_record_hash_sql('s.' ~ dbt_deid.ident(cfg.record_id), 'k') ~ " as record_key from " ~ dbt_deid.release_source(cfg) ~ " as s cross join " ~ key ~ " as k) as c where c.record_key in (select record_key from " ~ store ~ " where " ~ dbt_deid.line_rows_condition(cfg) ~ ")").rows[0][0] | int -%}
  {%- if in_source > 0 -%}{{ return([]) }}{%- endif -%}
  {%- set disjoint = [] -%}{%- for e in earlier if e.release_id in epoch_ids -%}{%- do disjoint.append(e) -%}{%- endfor -%}
  {{ return(["no record of the source (any sample slot) is one the line's published version(s) " ~ dbt_deid._versions_text(cfg, disjoint) ~ " hold (same source, this epoch; their samples disjoint from this one, so this sample sharing none is expected, but the rest of the source should): the record ids changed (the type or text of the record id column '" ~ cfg.record_id ~ "' upstream, or a reload numbering the records anew), so this slot drawn over the new ids is a new random sample of the same people, who would be held twice; keep the record ids stable (restore their type and text), or, if these are really other records, start the line over explicitly with the setting `restart: {reason: '...'}` (audited: written into the history)"]) }}
{%- endmacro %}

{#- True when the two `sample` settings (mappings {fraction, slot, seed}, defaults slot 0 and
    seed 0; none for the whole file) draw disjoint records: the same seed and slot ranges of
    the 32-bit hash that do not overlap (sample_range, which sample_condition reads). -#}
{% macro samples_disjoint(a, b) -%}
  {%- if a is not mapping or b is not mapping or a.get('fraction') is none or b.get('fraction') is none -%}{{ return(false) }}{%- endif -%}
  {%- if (a.get('seed') or 0) | int != (b.get('seed') or 0) | int -%}{{ return(false) }}{%- endif -%}
  {%- set ra, rb = dbt_deid.sample_range(a), dbt_deid.sample_range(b) -%}
  {{ return(ra[1] <= rb[0] or rb[1] <= ra[0]) }}
{%- endmacro %}

{#- Review 8, F4b: (shared, changed) of the candidate's records against each record's latest
    stored state in the line (`ordered`: the line's release ids, oldest first; the latest
    holding the record wins): shared is the records found, changed those whose true value
    differs on one of `qis` (compared at equal levels only; the stored true value is
    coalesce(`<qi>__generalized`, `<qi>`), as combined_view_sql reads it). Counts only. -#}
{% macro changed_shared_records_sql(cfg, truth, key, store, ordered, qis) -%}
  {%- set rank = [] -%}
  {%- for i in ordered -%}{%- do rank.append("when " ~ dbt_deid.literal(i) ~ " then " ~ loop.index) -%}{%- endfor -%}
  {%- set differs = [] -%}
  {%- for q in qis -%}
    {%- do differs.append("c." ~ dbt_deid.ident(q ~ '__generalized') ~ " is distinct from s." ~ dbt_deid.ident(q)) -%}
  {%- endfor -%}
  with stored as (
    select r.record_key
      {%- for q in qis %}, coalesce(r.{{ dbt_deid.ident(q ~ '__generalized') }}, r.{{ dbt_deid.ident(q) }}) as {{ dbt_deid.ident(q) }}{% endfor %},
      row_number() over (partition by r.record_key order by case r.release_id {{ rank | join(' ') }} else 0 end desc) as deid_latest
    from {{ store }} as r
    where r.release_id in ({% for i in ordered %}{{ dbt_deid.literal(i) }}{{ ', ' if not loop.last }}{% endfor %})
  ),
  candidate as (
    select {{ dbt_deid.keyed_record_hash_sql('t.' ~ dbt_deid.ident(cfg.record_id), 'k') }} as record_key
      {%- for q in qis %}, t.{{ dbt_deid.ident(q ~ '__generalized') }}{% endfor %}
    from {{ truth }} as t
    cross join {{ key }} as k
  )
  select count(*), sum(case when {{ differs | join(' or ') }} then 1 else 0 end)
    {%- for d in differs %}, sum(case when {{ d }} then 1 else 0 end){% endfor %}
  from candidate as c
  join stored as s on s.record_key = c.record_key and s.deid_latest = 1
{%- endmacro %}

{#- The line's states (session 16, issue 32: the publish step's passes over the candidate and
    the store in one): the combined view of combined_view_sql (one row per record state, `<qi>`
    the cell revealed by any release holding it, `<qi>__generalized` its true value,
    `deid_changed_any`: the record has more than one state), each state with what the line's
    story and the changed-records count read, so that neither joins the candidate with the
    store nor hashes a record id again: `record_key`, `deid_cand` (the candidate holds this
    state), `deid_stored` (a stored release of the line holds it), `deid_prev` (the previous
    version `previous_id` holds it), `deid_rank` (the latest release holding it, by its place
    in `ordered`, the line's release ids oldest first; 0 for none), `deid_cand_nulls` (the
    candidate's suppressed cells, a bit per released QI in their order) and `deid_prev_cells`
    (the previous version's cells not suppressed, likewise). Integer flags only besides the
    combined view's columns: a state's cells are compared only where the candidate and the
    previous version hold the same state (a kept record), and a record of one state (all but
    the changed ones) is read in its one row. Each record id is hashed once, the store's line
    rows read once. Working table of the gate combined_releases, dropped before it returns. -#}
{% macro line_states_sql(cfg, truth, key, store, ordered, previous_id) -%}
  {{ return(dbt_deid.own(adapter.dispatch('line_states_sql', 'dbt_deid'))(cfg, truth, key, store, ordered, previous_id)) }}
{%- endmacro %}

{% macro default__line_states_sql(cfg, truth, key, store, ordered, previous_id) -%}
  {%- set qis = cfg.released_qis -%}
  {%- set have = adapter.get_columns_in_relation(store) | map(attribute='name') | map('lower') | list -%}
  {%- set s = dbt.type_string() -%}
  {%- set I = dbt_deid.ident -%}
  {%- set rank = [] -%}
  {%- for i in ordered -%}{%- do rank.append("when " ~ dbt_deid.literal(i) ~ " then " ~ loop.index) -%}{%- endfor -%}
  {%- set cand_nulls = [] -%}{%- set prev_cells = [] -%}
  {%- for q in qis -%}
    {%- do cand_nulls.append("case when t." ~ I(q) ~ " is null then " ~ 2 ** loop.index0 ~ " else 0 end") -%}
    {%- if q | lower in have and (q ~ '__generalized') | lower in have -%}
      {%- do prev_cells.append("case when r." ~ I(q) ~ " is not null then " ~ 2 ** loop.index0 ~ " else 0 end") -%}
    {%- endif -%}
  {%- endfor -%}
  with deid_rows as (
    select {{ dbt_deid.keyed_record_hash_sql('t.' ~ I(cfg.record_id), 'k') }} as record_key, 1 as deid_cand, 0 as deid_stored, 0 as deid_prev, 0 as deid_rank,
      {{ cand_nulls | join(' + ') }} as deid_cand_nulls, 0 as deid_prev_cells
      {%- for q in qis %}, t.{{ I(q) }} as {{ I(q) }}, t.{{ I(q ~ '__generalized') }} as {{ I(q ~ '__generalized') }}{% endfor %}
    from {{ truth }} as t
    cross join {{ key }} as k
    union all
    select r.record_key, 0, 1, case when r.release_id = {{ dbt_deid.literal(previous_id) }} then 1 else 0 end,
      {% if rank %}case r.release_id {{ rank | join(' ') }} else 0 end{% else %}0{% endif %}, 0,
      case when r.release_id = {{ dbt_deid.literal(previous_id) }} then {{ (prev_cells | join(' + ')) or '0' }} else 0 end
      {%- for q in qis %}
      {%- if q | lower in have and (q ~ '__generalized') | lower in have %}, r.{{ I(q) }}, coalesce(r.{{ I(q ~ '__generalized') }}, r.{{ I(q) }})
      {%- else %}, cast(null as {{ s }}), cast(null as {{ s }}){% endif %}
      {%- endfor %}
    from {{ store }} as r
    where {{ dbt_deid.line_rows_condition(cfg, 'r') }}
  ),
  deid_states as (
    select record_key
      {%- for q in qis %}, {{ I(q ~ '__generalized') }}, max({{ I(q) }}) as {{ I(q) }}{% endfor %}
      , max(deid_cand) as deid_cand, max(deid_stored) as deid_stored, max(deid_prev) as deid_prev, max(deid_rank) as deid_rank
      , max(deid_cand_nulls) as deid_cand_nulls, max(deid_prev_cells) as deid_prev_cells
    from deid_rows
    group by record_key{% for q in qis %}, {{ I(q ~ '__generalized') }}{% endfor %}
  )
  {#- session 17: a record of one state (all but the changed records) is its own partition, so
      its count is 1: those states skip the window (refresh_states_split, as the refresh's
      pairs do: docs/living-release.md, session 17), the records with several states (and the
      states of a NULL key, a partition of its own) go through it as before. The same rows
      either way (tests/unit/test_line_states_sql.py). Spark keeps the one window. -#}
  {%- if dbt_deid.refresh_states_split() %}
  , deid_multi_state as (
    select record_key from deid_states group by record_key having count(*) > 1
  )
  select s.*, 0 as deid_changed_any
  from deid_states as s
  where s.record_key is not null
    and not exists (select 1 from deid_multi_state as m where m.record_key = s.record_key)
  union all
  select s.*, case when count(*) over (partition by s.record_key) > 1 then 1 else 0 end as deid_changed_any
  from deid_states as s
  where s.record_key is null
     or exists (select 1 from deid_multi_state as m where m.record_key = s.record_key)
  {%- else %}
  select s.*, case when count(*) over (partition by s.record_key) > 1 then 1 else 0 end as deid_changed_any
  from deid_states as s
  {%- endif %}
{%- endmacro %}

{#- changed_shared_records_sql's (shared, changed, changed per QI of `qis`) read from the line's
    states (line_states_sql): each record's candidate state against its latest stored state
    (the state holding the latest release of `ordered` that holds the record), true values
    compared on `qis`. A record of one state (`deid_changed_any` = 0) is its own latest state:
    shared when a release of `ordered` holds it, never changed; only the records of several
    states are joined. The same counts, with no join of the candidate with the store. -#}
{% macro changed_shared_states_sql(states, qis) -%}
  {%- set differs = [] -%}
  {%- for q in qis -%}
    {%- do differs.append("c." ~ dbt_deid.ident(q ~ '__generalized') ~ " is distinct from s." ~ dbt_deid.ident(q ~ '__generalized')) -%}
  {%- endfor -%}
  with stored as (
    select record_key{% for q in qis %}, {{ dbt_deid.ident(q ~ '__generalized') }}{% endfor %},
      row_number() over (partition by record_key order by deid_rank desc) as deid_latest
    from {{ states }}
    where deid_rank > 0 and deid_changed_any = 1
  ),
  several as (
    select count(*) as n, sum(case when {{ differs | join(' or ') }} then 1 else 0 end) as n_changed
      {%- for d in differs %}, sum(case when {{ d }} then 1 else 0 end) as c{{ loop.index }}{% endfor %}
    from {{ states }} as c
    join stored as s on s.record_key = c.record_key and s.deid_latest = 1
    where c.deid_cand = 1 and c.deid_changed_any = 1
  )
  select n + (select count(*) from {{ states }} where deid_cand = 1 and deid_rank > 0 and deid_changed_any = 0),
    coalesce(n_changed, 0){% for d in differs %}, coalesce(c{{ loop.index }}, 0){% endfor %}
  from several
{%- endmacro %}

{#- "version(s) 1, 2" of this name; "<name> version 1" for another name's. -#}
{% macro _versions_text(cfg, earlier) -%}
  {%- set out = [] -%}
  {%- for e in earlier -%}{%- do out.append((e.version | string) if e.name == cfg.name else (e.name ~ ' version ' ~ e.version)) -%}{%- endfor -%}
  {{ return(out | join(', ')) }}
{%- endmacro %}

{#- The gate: {gate, passed, failures, message, records_shared, combined_min, earlier_releases}.
    `candidate` is the table about to be published (its schema holds deid_release_history),
    `truth` the checked release. Messages carry counts, versions, setting and combination names,
    never a value or a record id. -#}
{% macro gate_combined_releases_result(cfg, candidate, truth) -%}
  {{ return(dbt_deid.own(adapter.dispatch('gate_combined_releases_result', 'dbt_deid'))(cfg, candidate, truth)) }}
{%- endmacro %}

{#- The gate's result, with the line's states table (line_states_sql, a working table next to
    the checked release) dropped on every path. -#}
{% macro default__gate_combined_releases_result(cfg, candidate, truth) -%}
  {%- set result = dbt_deid._gate_combined_releases(cfg, candidate, truth) -%}
  {{ drop_relation_if_exists(dbt_deid._line_states_relation(truth)) }}
  {{ return(result) }}
{%- endmacro %}

{#- The line's states table of the gate (line_states_sql), next to the checked release. -#}
{% macro _line_states_relation(truth) -%}
  {{ return(api.Relation.create(database=truth.database, schema=truth.schema, identifier=dbt_deid.release_node_name('deid_combined_releases__states'), type='table')) }}
{%- endmacro %}

{% macro _gate_combined_releases(cfg, candidate, truth) -%}
  {%- set gate = 'combined_releases' -%}
  {%- set history = api.Relation.create(database=candidate.database, schema=candidate.schema, identifier='deid_release_history', type='table') -%}
  {%- set store = dbt_deid.release_records_relation(truth) -%}
  {#- another publish of the same source in this build waits (or fails) until this one commits
      (macros/gates/line_lock.sql) -#}
  {#- the lock covers every line whose releases share records with this one (fail closed: a
      publish over a view or a copy of this source waits for this one too); the releases
      sharing records are found again once the lock is held (another publish may have
      committed while this one waited) -#}
  {%- set lock_problems = dbt_deid.lock_release_line(cfg, truth, dbt_deid.line_lock_sources(cfg, truth)) -%}
  {%- do dbt_deid.line_shared_release_ids(cfg, refresh=true) -%}

  {#- The store and its key must be whole: every earlier release in the store, and the one key
      that keyed it (checked for a first release too: the store is written after the swap). -#}
  {%- set store_found = adapter.get_relation(store.database, store.schema, store.identifier) is not none -%}
  {%- if store_found -%}{%- do dbt_deid.ensure_store_line_columns(store) -%}{%- endif -%}
  {%- set store_rows = (run_query('select count(*) from ' ~ store).rows[0][0] | int) if store_found else 0 -%}
  {%- set stored = [] -%}{%- set line_rows = [] -%}
  {%- if store_rows > 0 -%}
    {%- set stored = run_query("select distinct release_id from " ~ store ~ " where release_name = " ~ dbt_deid.literal(cfg.name) ~ " or (" ~ dbt_deid.combined_lines_condition(cfg) ~ ")").columns[0].values() | list -%}
    {%- set line_rows = run_query("select release_id, release_name, min(release_version) from " ~ store ~ " where " ~ dbt_deid.line_rows_condition(cfg) ~ " group by release_id, release_name order by 3, 2").rows -%}
  {%- endif -%}
  {%- set line_ids = line_rows | map(attribute=0) | list -%}
  {%- set earlier = dbt_deid._earlier_releases(cfg, history, line_ids) -%}
  {%- set base = {'gate': gate, 'records_shared': none, 'combined_min': none, 'earlier_releases': earlier | length} -%}
  {%- set versions = [dbt_deid._versions_text(cfg, earlier)] -%}
  {%- set names = earlier | map(attribute='name') | unique | list -%}
  {#- the other names' sources: this source, or the releases found by their records (another
      relation, or none recorded), each named -#}
  {%- set my_source = dbt_deid.line_source(cfg) -%}
  {%- set sources = [] -%}
  {%- if store_rows > 0 and line_ids | length > 0 and names | reject('equalto', cfg.name) | list | length > 0 -%}
    {%- set quoted = [] -%}{%- for i in line_ids -%}{%- do quoted.append(dbt_deid.literal(i)) -%}{%- endfor -%}
    {%- for r in run_query("select distinct coalesce(source_relation, '(no source recorded)') from " ~ store ~ " where release_id in (" ~ quoted | join(', ') ~ ") and release_name <> " ~ dbt_deid.literal(cfg.name) ~ " order by 1").rows -%}
      {%- do sources.append(r[0]) -%}
    {%- endfor -%}
  {%- endif -%}
  {%- set elsewhere = [] -%}{%- for x in sources if x != my_source -%}{%- do elsewhere.append(x | replace('"', '')) -%}{%- endfor -%}
  {%- set of_names = "'" ~ cfg.name ~ "'" -%}
  {%- if names | reject('equalto', cfg.name) | list | length > 0 and (my_source in sources or elsewhere | length == 0) -%}
    {%- set of_names = of_names ~ " and of the same source (" ~ my_source | replace('"', '') ~ ")" -%}
  {%- endif -%}
  {%- if elsewhere | length > 0 -%}
    {%- set of_names = of_names ~ " and of the releases sharing its records from " ~ elsewhere | join(', ') -%}
  {%- endif -%}
  {%- set unrecorded = [] -%}
  {%- for e in earlier -%}{%- if e.release_id not in stored -%}{%- do unrecorded.append((e.version | string) if e.name == cfg.name else (e.name ~ ' version ' ~ e.version)) -%}{%- endif -%}{%- endfor -%}
  {%- set problems = [] -%}
  {%- do problems.extend(lock_problems or []) -%}
  {%- if unrecorded | length > 0 -%}
    {%- do problems.append("earlier published release(s) " ~ unrecorded | join(', ') ~ " of " ~ of_names ~ " have no per-record rows in " ~ store ~ " (published before dbt_deid kept them, or the store was dropped)") -%}
  {%- endif -%}
  {#- the other way: store rows of the line whose release the history does not record as
      published (their levels and combinations are unknown; never read at this release's) -#}
  {%- set known = earlier | map(attribute='release_id') | list -%}
  {%- set unlisted = [] -%}
  {%- for r in line_rows if r[0] not in known -%}{%- do unlisted.append(((r[2] | string) if r[1] == cfg.name else (r[1] ~ ' version ' ~ r[2])) ~ ' (release ' ~ r[0] ~ ')') -%}{%- endfor -%}
  {%- if unlisted | length > 0 -%}
    {%- do problems.append("the per-record store " ~ store ~ " holds release(s) " ~ unlisted | join(', ') ~ " of " ~ of_names ~ " that the release history does not record as published (their levels and combinations are unknown)") -%}
  {%- endif -%}
  {#- an extra release's own store of before one store per project, holding rows of the line:
      its records cannot be linked (another key), so the combined view cannot be checked -#}
  {%- do problems.extend(dbt_deid.legacy_store_problems(cfg, truth)) -%}
  {%- set key_relation = dbt_deid.history_key_relation(truth) -%}
  {%- set key = none -%}
  {%- if adapter.get_relation(key_relation.database, key_relation.schema, key_relation.identifier) is none -%}
    {%- if store_rows > 0 -%}
      {%- do problems.append("the key table " ~ key_relation ~ " is missing, so the stored records cannot be matched") -%}
    {%- endif -%}
  {%- else -%}
    {%- set n = run_query('select count(*) from ' ~ key_relation).rows[0][0] | int -%}
    {%- if n != 1 -%}
      {%- do problems.append("the key table " ~ key_relation ~ " holds " ~ n ~ " rows, not 1") -%}
    {%- else -%}
      {%- set key = key_relation -%}
      {#- the key's fingerprint, written into the history row (line_json's key_check): a key
          replaced together with the store's fingerprints is still seen (review 7, finding 5) -#}
      {%- do base.update({'key_check': run_query("select " ~ dbt_deid.key_check_sql('k') ~ " from " ~ key ~ " as k").rows[0][0]}) -%}
    {%- endif -%}
  {%- endif -%}
  {#- the store whole, project-wide: the key that keyed it, no rows deleted or stored twice, no published
      release of this epoch without rows (macros/gates/store_integrity.sql) -#}
  {%- do problems.extend(dbt_deid.store_integrity_problems(cfg, store, key, history, store_found, earlier | map(attribute='release_id') | list, this)) -%}
  {#- the stored rows the combined view reads (the line's rows: this epoch, line_ids) are the
      rows written at publish: their fingerprint in the history row (review 19, F2;
      macros/gates/stored_rows_check.sql). An earlier epoch's rows are not read, so a `restart`
      is a way out -#}
  {%- if store_found and problems | length == 0 -%}
    {%- do problems.extend(dbt_deid.stored_rows_edited_problems(store, history, earlier | map(attribute='release_id') | select('in', line_ids) | list)) -%}
  {%- endif -%}
  {#- the line's story; its count of the records shared with the line's stored rows is the
      one the gate reads below (the same records and store rows, counted in the same pass) -#}
  {#- Session 16: the candidate's records and the line's stored rows are read in one pass,
      into the line's states (line_states_sql: the combined view, each state with the flags and
      cells the story and the changed-records count read); each record id is hashed once. The
      story, the changed-records count and the combined view at equal levels read that table. -#}
  {%- set story_shared = [] -%}{%- set states = [] -%}
  {%- if problems | length == 0 and key is not none and store_rows > 0 -%}
    {%- set previous = dbt_deid.line_previous_release(cfg, store) -%}
    {%- if previous is not none -%}
      {%- set line_order = [] -%}{%- for e in earlier if e.release_id in line_ids -%}{%- do line_order.append(e.release_id) -%}{%- endfor -%}
      {%- set states_relation = dbt_deid._line_states_relation(truth) -%}
      {{ drop_relation_if_exists(states_relation) }}
      {% call statement('deid_line_states') -%}
        {{ get_create_table_as_sql(False, states_relation, dbt_deid.line_states_sql(cfg, truth, key, store, line_order, previous.release_id)) }}
      {%- endcall %}
      {%- do states.append({'relation': states_relation, 'ordered': line_order}) -%}
    {%- endif -%}
    {%- set story = dbt_deid.line_story(cfg, truth, key, store, states[0].relation if states else none, previous) -%}
    {%- if story is not none -%}{%- do story_shared.append(story.pop('records_shared')) -%}{%- endif -%}
    {%- do base.update({'line': story}) -%}
  {%- endif -%}
  {%- if problems | length > 0 -%}
    {#- a published table the history does not record is not excused by a restart alone
        (orphaned_publication_problems names the way out: the table archived or dropped first) -#}
    {%- set orphaned = [] -%}{%- for p in problems if 'archive or drop the published table' in p -%}{%- do orphaned.append(p) -%}{%- endfor -%}
    {{ return(dbt_deid._with(base, passed=false, failures=problems | length,
                   message="combined releases: " ~ problems | join('; ') ~ ": the combined view cannot be checked; restore them from a backup (never edit them), or start the line over explicitly with the setting `restart: {reason: '...'}` (audited: written into the history)" ~ (", after archiving or dropping the published table " ~ this ~ " (a restart alone does not excuse it)" if orphaned else ""))) }}
  {%- endif -%}
  {%- if earlier | length == 0 -%}
    {#- review 20 F-A: the same source's line in another schema's history (both schemas moved) -#}
    {%- set elsewhere_lines = [] if dbt_deid.line_epoch() else dbt_deid.lines_elsewhere(cfg, history) -%}
    {%- if elsewhere_lines | length > 0 -%}
      {{ return(dbt_deid._with(base, passed=false, failures=1, records_shared=0,
                     message="combined releases: no earlier release of '" ~ cfg.name ~ "' in " ~ history ~ ", but the same source (" ~ dbt_deid.line_source(cfg) | replace('"', '') ~ ") has published releases recorded in " ~ elsewhere_lines | join('; ') ~ ": this version would start a line beside that one and recipients of both could combine them; build with the working schema (var deid_work_schema) and the published schema that line uses, or start the line over explicitly with the setting `restart: {reason: '...'}` (audited: written into the history)")) }}
    {%- endif -%}
    {{ return(dbt_deid._with(base, passed=true, failures=0, records_shared=0,
                   message="combined releases: no earlier published release of '" ~ cfg.name ~ "', nothing to combine")) }}
  {%- endif -%}

  {#- Records shared with the earlier releases (on the keyed hash). -#}
  {%- set rid = 't.' ~ dbt_deid.ident(cfg.record_id) -%}
  {%- set shared = story_shared[0] if story_shared else run_query("select count(*) from (select distinct " ~ dbt_deid.keyed_record_hash_sql(rid, 'k') ~ " as record_key from " ~ truth ~ " as t cross join " ~ key ~ " as k) as c where c.record_key in (select record_key from " ~ store ~ " where " ~ dbt_deid.line_rows_condition(cfg) ~ ")").rows[0][0] | int -%}
  {%- set epoch_ids = dbt_deid.line_release_ids(cfg, store) -%}
  {%- if shared == 0 -%}
    {#- review 8, F4: no record shared with the line's published versions of this epoch is the
        record ids changed (their type or text, a reload), unless the samples are disjoint -#}
    {%- set unshared = dbt_deid.unshared_line_problems(cfg, earlier, epoch_ids) -%}
    {%- if unshared | length == 0 and cfg.sample is not none -%}
      {%- set unshared = dbt_deid.unshared_source_problems(cfg, earlier, epoch_ids, key, store) -%}
    {%- endif -%}
    {%- if unshared | length > 0 -%}
      {{ return(dbt_deid._with(base, passed=false, failures=1, records_shared=0, message="combined releases: " ~ unshared | join('; '))) }}
    {%- endif -%}
    {{ return(dbt_deid._with(base, passed=true, failures=0, records_shared=0,
                   message="combined releases: no record shared with the " ~ earlier | length ~ " earlier published release(s) of " ~ of_names ~ " (version(s) " ~ versions | join(', ') ~ ")")) }}
  {%- endif -%}

  {#- The verified QIs must be released at the same level, from the same hierarchy or rule, in
      every earlier release that released them: cells are then comparable value by value. -#}
  {%- set specs = dbt_deid.released_level_specs(cfg) -%}
  {%- set verified = [] -%}
  {%- for b in cfg.verified_combinations -%}{%- for c in b -%}{%- if c not in verified -%}{%- do verified.append(c) -%}{%- endif -%}{%- endfor -%}{%- endfor -%}
  {%- set differing = [] -%}
  {#- releases at other levels of the same hierarchies are combined at mixed levels (each QI
      at the finest level any release revealed it: combined_levels_view_sql); another
      hierarchy, rule, column or missing label is refused -#}
  {%- set release_levels = {} -%}
  {%- for e in earlier if e.release_id in epoch_ids -%}
    {%- if e.specs is none -%}
      {%- do differing.append(dbt_deid._versions_text(cfg, [e]) ~ " recorded no released levels") -%}
    {%- else -%}
      {%- set lv = {} -%}
      {%- for q, spec in e.specs.items() -%}{%- do lv.update({q: spec.level | int}) -%}{%- endfor -%}
      {%- do release_levels.update({e.release_id: lv}) -%}
      {%- for q in verified -%}
        {%- set mine = specs.get(q) -%}{%- set theirs = e.specs.get(q) -%}
        {%- if mine is not none and theirs is not none -%}
          {%- for field in ['hierarchy', 'rule', 'column', 'missing_label'] -%}
            {%- if tojson(mine.get(field), sort_keys=true) != tojson(theirs.get(field), sort_keys=true) -%}
              {%- set setting = "missing_label" if field == 'missing_label' else "quasi_identifiers." ~ q ~ "." ~ field -%}
              {%- do differing.append(setting ~ ((" (differs from version " ~ e.version ~ ")") if field == 'rule' else (" (" ~ theirs.get(field) ~ " in version " ~ e.version ~ ", " ~ mine.get(field) ~ " now)"))) -%}
            {%- endif -%}
          {%- endfor -%}
        {%- endif -%}
      {%- endfor -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if differing | length > 0 -%}
    {{ return(dbt_deid._combine_refused(base, differing, shared, of_names, "released from other hierarchies",
                                     "the combined view is checked cell by cell at each cell's level of one hierarchy: keep the earlier hierarchies")) }}
  {%- endif -%}
  {#- the same hierarchy by name, edited: a value released in one group is in another now
      (review 8, finding 2; macros/gates/hierarchy_moves.sql); figure: the moved values -#}
  {%- set moved = dbt_deid.hierarchy_moves(cfg, truth, '__generalized', epoch_ids, history) -%}
  {%- if moved.moves or moved.lost or moved.edited -%}
    {{ return(dbt_deid._with(base, passed=false, failures=moved.total + moved.lost | length + moved.edited | length, records_shared=shared, figure=moved.total, limit=0,
                   message="combined releases: " ~ shared ~ " record(s) are shared with earlier release(s) of " ~ of_names ~ " released through an edited hierarchy: " ~ dbt_deid.hierarchy_moves_message(moved))) }}
  {%- endif -%}
  {#- Another name's verified combinations are read from its recorded settings: a release
      whose combinations were derived (demographics, hierarchical_qis) recorded none, and a
      combination over a quasi-identifier this release does not release is outside the
      combined view; neither can be checked, so both are refused, never skipped. -#}
  {%- set uncheckable = [] -%}
  {%- for e in earlier if e.release_id in epoch_ids and e.name != cfg.name -%}
    {%- if e.combinations is none -%}
      {%- do uncheckable.append(dbt_deid._versions_text(cfg, [e]) ~ " recorded no explicit combinations (derived ones are not recorded): declare `combinations` in it") -%}
    {%- else -%}
      {%- for b in e.combinations -%}
        {%- set missing = b | reject('in', cfg.released_qis) | list -%}
        {%- if missing | length > 0 -%}
          {%- do uncheckable.append(dbt_deid._versions_text(cfg, [e]) ~ " verified " ~ b | join('+') ~ ", over " ~ missing | join(', ') ~ " which this release does not release") -%}
        {%- endif -%}
      {%- endfor -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if uncheckable | length > 0 -%}
    {{ return(dbt_deid._combine_refused(base, uncheckable, shared, of_names, "whose combinations the combined view cannot check",
                                     "release the same quasi-identifiers with explicit combinations")) }}
  {%- endif -%}
  {#- A release of the line that did not release a QI this release releases holds that QI's
      true value NULL in the store: its records would split into states counting each other
      (in both combined views). Refused when it shares records with this release, naming the
      QI and the release, never a value. -#}
  {%- set unreleased = [] -%}
  {%- for u in dbt_deid.unreleased_qi_releases(cfg, earlier, epoch_ids) -%}
    {%- set with_it = run_query("select count(*) from (select distinct " ~ dbt_deid.keyed_record_hash_sql(rid, 'k') ~ " as record_key from " ~ truth ~ " as t cross join " ~ key ~ " as k) as c where c.record_key in (select record_key from " ~ store ~ " where " ~ dbt_deid.line_rows_condition(cfg) ~ " and release_id = " ~ dbt_deid.literal(u.release_id) ~ ")").rows[0][0] | int -%}
    {%- if with_it > 0 -%}
      {%- do unreleased.append(u.release ~ " did not release " ~ u.qis | join(', ') ~ " (" ~ with_it ~ " shared record(s))") -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if unreleased | length > 0 -%}
    {{ return(dbt_deid._combine_refused(base, unreleased, shared, of_names, "that did not release every quasi-identifier this release releases",
                                     "their true values there are not stored, so the combined view cannot tell the records' states apart: release the same quasi-identifiers")) }}
  {%- endif -%}
  {%- set current = {} -%}{%- set levels = {} -%}
  {%- for q in cfg.released_qis -%}
    {%- set lv = (specs.get(q) or {}).get('level') -%}
    {%- do current.update({q: (lv if lv is not none else 0) | int}) -%}
    {%- set all = [current[q]] -%}
    {%- for rid, rl in release_levels.items() -%}{%- if rl.get(q) is not none -%}{%- do all.append(rl[q]) -%}{%- endif -%}{%- endfor -%}
    {%- do levels.update({q: all | unique | sort | list}) -%}
  {%- endfor -%}
  {%- set mixed = [] -%}
  {%- for q in verified -%}{%- if levels.get(q, []) | length > 1 -%}{%- do mixed.append(q) -%}{%- endif -%}{%- endfor -%}
  {#- the combinations any combined release verifies (each over QIs this release releases) -#}
  {%- set combinations = [] -%}
  {%- for b in cfg.verified_combinations -%}{%- do combinations.append(b | list) -%}{%- endfor -%}
  {#- an earlier combination over a QI this release does not release is not skipped (review 9b,
      H1): the recipient holds that QI from the earlier version, and a combined view without it
      would check none of those combinations; refused, naming the QIs and versions only -#}
  {%- set dropped = [] -%}
  {%- for e in earlier if e.release_id in epoch_ids -%}
    {%- for b in e.combinations or [] -%}
      {%- set missing = b | reject('in', cfg.released_qis) | list -%}
      {%- if missing | length > 0 -%}
        {%- do dropped.append(("version " if e.name == cfg.name else "") ~ dbt_deid._versions_text(cfg, [e]) ~ " verified " ~ b | join('+') ~ " (" ~ missing | join(', ') ~ " not released now)") -%}
      {%- elif b | list not in combinations -%}{%- do combinations.append(b | list) -%}{%- endif -%}
    {%- endfor -%}
    {#- its released QIs (recorded levels): its combinations are not in its settings when they
        were not declared (one combination of every QI) or expanded from hierarchical QIs -#}
    {%- set gone = (e.specs or {}).keys() | reject('in', cfg.released_qis) | sort | list -%}
    {%- if gone | length > 0 -%}
      {%- do dropped.append(("version " if e.name == cfg.name else "") ~ dbt_deid._versions_text(cfg, [e]) ~ " released " ~ gone | join(', ') ~ " (not released now)") -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if dropped | length > 0 -%}
    {{ return(dbt_deid._combine_refused(base, dropped | unique | list, shared, of_names, "whose combinations are over quasi-identifiers this release does not release",
                                     "the recipient holds them from the earlier versions and the combined view could not check those combinations: release the same quasi-identifiers")) }}
  {%- endif -%}
  {#- the largest k any combined release promised (each promised its k on its combinations;
      checking all at the largest is the conservative reading) -#}
  {%- set ks = [cfg.k | int] -%}
  {%- for e in earlier if e.release_id in epoch_ids and e.k is not none -%}{%- do ks.append(e.k | int) -%}{%- endfor -%}
  {%- set k = ks | max -%}
  {%- if mixed | length > 0 -%}
    {{ return(dbt_deid._combined_levels_result(cfg, truth, key, store, base, release_levels, current, levels, combinations, shared, of_names, versions, earlier, mixed, k)) }}
  {%- endif -%}

  {#- review 8, F4b: ids that name other records (a renumbered surrogate key) make almost
      every shared record "changed": each old state would count as another record (equal
      levels only: the mixed-level view refuses a record whose truths differ at one level) -#}
  {%- set ordered = [] -%}{%- for e in earlier if e.release_id in epoch_ids -%}{%- do ordered.append(e.release_id) -%}{%- endfor -%}
  {%- set latest = earlier | selectattr('release_id', 'equalto', ordered[-1]) | list if ordered else [] -%}
  {%- set compared = [] -%}{%- set n_changed = 0 -%}
  {%- for q in cfg.released_qis if ordered and (release_levels.get(ordered[-1]) or {}).get(q) == current[q] -%}{%- do compared.append(q) -%}{%- endfor -%}
  {%- if compared | length > 0 -%}
    {#- read from the line's states when they were built over the same releases (the line's
        rows are the releases of `ordered`: one not in the history is refused above) -#}
    {%- if states and states[0].ordered == ordered -%}
      {%- set counts = run_query(dbt_deid.changed_shared_states_sql(states[0].relation, compared)).rows[0] -%}
    {%- else -%}
      {%- set counts = run_query(dbt_deid.changed_shared_records_sql(cfg, truth, key, store, ordered, compared)).rows[0] -%}
    {%- endif -%}
    {%- set n_shared, n_changed = (counts[0] or 0) | int, (counts[1] or 0) | int -%}
    {#- review 18, F1: the line's limit, the smallest any combined release was checked under
        (as k is the largest above): another name over the same source does not raise it, a
        `restart` of the same name starts a new epoch -#}
    {%- set limits = [(cfg.max_changed_share, '')] -%}
    {%- for e in earlier if e.release_id in epoch_ids and e.max_changed_share is not none and e.max_changed_share < cfg.max_changed_share -%}
      {%- do limits.append((e.max_changed_share, ' of the line, set by ' ~ ("version " if e.name == cfg.name else "") ~ dbt_deid._versions_text(cfg, [e]) ~ ('' if e.name == cfg.name else ' (another release name over the same records does not raise it: a larger value needs a `restart` of release ' ~ e.name ~ ')'))) -%}
    {%- endfor -%}
    {%- set lowest = (limits | sort(attribute='0') | first) -%}
    {%- set most = lowest[0] -%}
    {%- set per_qi = [] -%}
    {%- for q in compared -%}{%- if (counts[2 + loop.index0] or 0) | int > 0 -%}{%- do per_qi.append(q ~ ' ' ~ counts[2 + loop.index0] | int) -%}{%- endif -%}{%- endfor -%}
    {%- if n_shared > 0 and n_changed > most * n_shared -%}
      {{ return(dbt_deid._with(base, passed=false, failures=1, records_shared=shared, figure=n_changed, limit=(most * n_shared) | round(0, 'floor') | int,
                     message="combined releases: record ids appear to name other records than in version " ~ dbt_deid._versions_text(cfg, latest) ~ ": " ~ n_changed ~ " of the " ~ n_shared ~ " record(s) shared with their latest published version changed the true values of their quasi-identifiers (" ~ per_qi | join(', ') ~ "; more than max_changed_share = " ~ most ~ lowest[1] ~ "; a renumbered record id column '" ~ cfg.record_id ~ "' would make each old state count as another record; one quasi-identifier alone is more likely its hierarchy or rule edited, which linked versions would intersect): keep the ids and the hierarchies stable, or start the line over explicitly with the setting `restart: {reason: '...'}` (audited: written into the history); if that many records really changed, set a larger max_changed_share together with that restart (a line setting: it is set when the line starts, and a change between versions is refused)")) }}
    {%- endif -%}
  {%- endif -%}
  {#- review 10, B1: records whose true values changed, linked across versions, on every path
      (the refresh guards them in its Python map; an OLA version, another sample, a store
      without a QI's column never went through it): the linked check in SQL. Run when a
      compared QI changed, a released QI is stored at another level (counted as changed) or
      two releases are stored: a record changed in an earlier version stays a target (review
      11b, L1: a later version can delete or change the records that hid it). -#}
  {%- if ordered and (compared | length < cfg.released_qis | length or n_changed > 0 or ordered | length > 1) -%}
    {%- set linked = dbt_deid.linked_changes_problems(cfg, truth, key, store, ordered, release_levels, current, combinations, k,
          dbt_deid._graph_relation(dbt_deid.release_node_name('deid_hierarchy'))) -%}
    {%- if linked.parts | length > 0 -%}
      {{ return(dbt_deid._with(base, passed=false, failures=linked.parts | length, records_shared=shared,
                     message="combined releases: " ~ shared ~ " record(s) shared with " ~ earlier | length ~ " earlier release(s) of " ~ of_names ~ " (version(s) " ~ versions | join(', ') ~ "), " ~ linked.changed ~ " of them with true values changed now or in an earlier version: " ~ linked.parts | join('; ') ~ "; " ~ dbt_deid.linked_changes_advice())) }}
    {%- endif -%}
  {%- endif -%}
  {#- The combined view, as a table next to the store, checked by the exact check: the line's
      states when built (the same rows and columns, with the story's columns besides). -#}
  {%- if states -%}
    {%- set combined = states[0].relation -%}
  {%- else -%}
  {%- set combined = api.Relation.create(database=truth.database, schema=truth.schema, identifier=dbt_deid.release_node_name('deid_combined_releases__candidate'), type='table') -%}
  {{ drop_relation_if_exists(load_cached_relation(combined)) }}
  {% call statement('deid_combined_view') -%}
    {{ get_create_table_as_sql(False, combined, dbt_deid.combined_view_sql(cfg, truth, key, store)) }}
  {%- endcall %}
  {%- endif -%}
  {#- review 19, F1: counted by person, each record once with every cell any version revealed
      (combined_persons_sql); the records whose true values changed are released records
      only here, the linked check's targets above -#}
  {%- set persons = api.Relation.create(database=truth.database, schema=truth.schema, identifier=dbt_deid.release_node_name('deid_combined_releases__persons'), type='table') -%}
  {%- set marker = dbt_deid.combined_conflict_marker() -%}
  {{ drop_relation_if_exists(load_cached_relation(persons)) }}
  {% call statement('deid_combined_persons') -%}
    {{ get_create_table_as_sql(False, persons, dbt_deid.combined_persons_sql(combined, cfg.released_qis, marker)) }}
  {%- endcall %}
  {{ drop_relation_if_exists(combined) }}
  {%- set reserved = [] -%}{%- for q in cfg.released_qis -%}{%- do reserved.append(dbt_deid.ident(q ~ '__generalized') ~ ' = ' ~ dbt_deid.literal(marker)) -%}{%- endfor -%}
  {%- set counts = run_query('select count(*), coalesce(sum(1 - deid_target), 0), coalesce(sum(deid_conflicts), 0), coalesce(sum(case when deid_target = 1 and (' ~ reserved | join(' or ') ~ ') then 1 else 0 end), 0) from ' ~ persons).rows[0] -%}
  {%- set records = counts[0] | int -%}{%- set changed = counts[1] | int -%}{%- set conflicting = counts[2] | int -%}
  {%- if counts[3] | int > 0 -%}
    {{ drop_relation_if_exists(persons) }}
    {{ return(dbt_deid._with(base, passed=false, failures=1, records_shared=shared,
                   message="combined releases: " ~ counts[3] ~ " record(s) hold the true value '" ~ marker ~ "', the text the combined view writes for a cell revealed with two different values: rename that category in the hierarchy or rule")) }}
  {%- endif -%}
  {%- set table = run_query(dbt_deid.exact_risk_summary_sql(persons, combinations, k, none, none, 'deid_target')) -%}
  {#- the combined view's smallest class per combination (a suppressed cell its own category) -#}
  {%- do base.update({'combined_figures': dbt_deid._combined_figures(persons, combinations, table, ['']) }) -%}
  {{ drop_relation_if_exists(persons) }}
  {%- set parts = [] -%}{%- set mins = [] -%}
  {%- do dbt_deid._combined_below_k(table, k, parts, mins) -%}
  {%- set smallest = mins | min if mins else none -%}
  {%- set where = shared ~ " record(s) shared with " ~ earlier | length ~ " earlier release(s) of " ~ of_names ~ " (version(s) " ~ versions | join(', ') ~ "); combined view of " ~ records ~ " records" ~ ((", " ~ changed ~ " of them with true values changed between versions, each counted once with every cell any version revealed" ~ ((" (" ~ conflicting ~ " revealed two values of a quasi-identifier and match no record there)") if conflicting else "")) if changed else "") -%}
  {{ return(dbt_deid._with(base, table=table, passed=parts | length == 0, failures=parts | length, records_shared=shared, combined_min=smallest,
                 message=("combined releases: " ~ where ~ ": " ~ parts | join('; ')) if parts else ("combined releases: " ~ where ~ ": every record is consistent with at least k = " ~ k ~ " combined records (smallest " ~ smallest ~ ")"))) }}
{%- endmacro %}

{#- The earlier releases of the line (those of `earlier` whose release id is in `epoch_ids`)
    that recorded released levels without one of the QIs this release releases: a list of
    {release_id, release (name and version, as _versions_text), qis (the QIs not released)}.
    The gate combined_releases refuses each that shares records with this release. -#}
{% macro unreleased_qi_releases(cfg, earlier, epoch_ids) -%}
  {%- set out = [] -%}
  {%- for e in earlier if e.release_id in epoch_ids and e.specs is not none -%}
    {%- set qis = cfg.released_qis | reject('in', e.specs.keys() | list) | list -%}
    {%- if qis | length > 0 -%}
      {%- do out.append({'release_id': e.release_id, 'release': dbt_deid._versions_text(cfg, [e]), 'qis': qis}) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(out) }}
{%- endmacro %}

{#- The gate's verdict at mixed levels (releases of one source at other levels of the same
    hierarchies; issue 32, item 2): the combined view of combined_levels_view_sql, each QI at
    the finest level any release revealed it, checked by exact_levels_summary_sql on every
    combination any combined release verifies. A record whose two releases hold two different
    true values at one level (a value changed inside one group of the coarsest level) is
    refused: its states cannot be told apart. -#}
{% macro _combined_levels_result(cfg, truth, key, store, base, release_levels, current, levels, combinations, shared, of_names, versions, earlier, mixed, k) -%}
  {%- set hierarchy = dbt_deid._graph_relation(dbt_deid.release_node_name('deid_hierarchy')) -%}
  {#- the hierarchies must nest between the levels used (one parent per value and level): the
      view's joins would otherwise multiply a record's states; refused before it is read -#}
  {%- set split = run_query(dbt_deid.combined_levels_nesting_sql(hierarchy, cfg.released_qis, levels)).rows -%}
  {%- if split | length > 0 -%}
    {%- set named = [] -%}{%- for r in split -%}{%- do named.append(r[0] ~ " (" ~ r[1] ~ " value(s) with two parents at a coarser level)") -%}{%- endfor -%}
    {{ return(dbt_deid._with(base, passed=false, failures=split | length, records_shared=shared,
                   message="combined releases: " ~ shared ~ " record(s) shared with earlier release(s) of " ~ of_names ~ " at other levels of hierarchies that do not nest: " ~ named | join('; ') ~ "; the combined view reads a coarser cell as holding the finer one: fix the hierarchy so each value has one parent per level, or keep the earlier levels, or start the line over explicitly with the setting `restart: {reason: '...'}` (audited: written into the history)")) }}
  {%- endif -%}
  {%- set combined = api.Relation.create(database=truth.database, schema=truth.schema, identifier=dbt_deid.release_node_name('deid_combined_releases__candidate'), type='table') -%}
  {{ drop_relation_if_exists(load_cached_relation(combined)) }}
  {% call statement('deid_combined_levels_view') -%}
    {{ get_create_table_as_sql(False, combined, dbt_deid.combined_levels_view_sql(cfg, truth, key, store, hierarchy, release_levels, current, levels)) }}
  {%- endcall %}
  {%- set records = run_query('select count(*) from ' ~ combined).rows[0][0] | int -%}
  {%- set conflicts = run_query('select count(*) from ' ~ combined ~ ' where deid_conflict = 1').rows[0][0] | int -%}
  {%- set unleveled = run_query('select count(*) from ' ~ combined ~ ' where deid_unlisted = 1').rows[0][0] | int -%}
  {%- set unreleased = run_query('select count(*) from ' ~ combined ~ ' where deid_unreleased = 1').rows[0][0] | int -%}
  {%- set unmapped = run_query('select count(*) from ' ~ combined ~ ' where deid_unmapped = 1').rows[0][0] | int -%}
  {%- set multi = run_query('select count(*) from ' ~ combined ~ ' where deid_changed_any = 1').rows[0][0] | int -%}
  {%- set table = run_query(dbt_deid.exact_levels_summary_sql(combined, combinations, k, levels)) -%}
  {%- do base.update({'combined_figures': dbt_deid._combined_figures(combined, combinations, table, ['', '__level']) }) -%}
  {{ drop_relation_if_exists(combined) }}
  {%- set parts = [] -%}{%- set mins = [] -%}
  {%- if conflicts > 0 -%}
    {%- do parts.append(conflicts ~ " record(s) hold two different true values at one level in two releases (a value changed between releases at other levels, seen at any level of its hierarchy): keep the earlier levels") -%}
  {%- endif -%}
  {%- if unleveled > 0 -%}
    {%- do parts.append(unleveled ~ " record(s) hold rows of a stored release whose levels the gate was not given (never read at this release's levels)") -%}
  {%- endif -%}
  {%- if unreleased > 0 -%}
    {%- do parts.append(unreleased ~ " record(s) hold rows of a stored release that did not release one of this release's quasi-identifiers (their true values there are not stored)") -%}
  {%- endif -%}
  {%- if unmapped > 0 -%}
    {%- do parts.append(unmapped ~ " record(s) hold a stored true value that deid_hierarchy does not map to a coarser level used (a value gone from today's hierarchy)") -%}
  {%- endif -%}
  {%- if multi > 0 -%}
    {#- review 19, F1: a record whose true values changed is one record to a recipient who
        links its rows; at mixed levels its states are not merged into one record (that is
        done at equal levels only, combined_persons_sql), so they are refused here -#}
    {%- do parts.append(multi ~ " state(s) of records whose true values changed between versions (recipients link a record's rows across versions: at mixed levels the combined view cannot count such a record once with every cell any version revealed)") -%}
  {%- endif -%}
  {#- review 10, B1: records whose true values changed (compared at the coarser of their two
      levels), linked across versions: a version at other levels is never a refresh, so no
      Python map guarded them -#}
  {%- set ordered = [] -%}{%- for e in earlier if e.release_id in release_levels -%}{%- do ordered.append(e.release_id) -%}{%- endfor -%}
  {%- if ordered -%}
    {%- set linked = dbt_deid.linked_changes_problems(cfg, truth, key, store, ordered, release_levels, current, combinations, k, hierarchy) -%}
    {%- for p in linked.parts -%}{%- do parts.append("changed records linked across versions: " ~ p ~ " (" ~ dbt_deid.linked_changes_advice() ~ ")") -%}{%- endfor -%}
  {%- endif -%}
  {%- do dbt_deid._combined_below_k(table, k, parts, mins) -%}
  {%- set smallest = mins | min if mins else none -%}
  {%- set at = [] -%}{%- for q in mixed -%}{%- do at.append(q ~ " at levels " ~ levels[q] | join('/')) -%}{%- endfor -%}
  {%- set where = shared ~ " record(s) shared with " ~ earlier | length ~ " earlier release(s) of " ~ of_names ~ " (version(s) " ~ versions | join(', ') ~ "); combined view of " ~ records ~ " records at mixed levels (" ~ at | join(', ') ~ "; each cell at the finest level any release revealed it)" -%}
  {{ return(dbt_deid._with(base, table=table, passed=parts | length == 0, failures=parts | length, records_shared=shared, combined_min=smallest,
                 message=("combined releases: " ~ where ~ ": " ~ parts | join('; ') ~ "; keep the earlier levels (or suppress more: a cell any release revealed stays revealed), or start the line over explicitly with the setting `restart: {reason: '...'}` (audited: written into the history)") if parts else ("combined releases: " ~ where ~ ": every record is consistent with at least k = " ~ k ~ " combined records (smallest " ~ smallest ~ ")"))) }}
{%- endmacro %}

{#- The combined view's figures per combination: its smallest class (grouped on the cells and
    the columns `<qi><suffix>` for each suffix: a suppressed cell its own category) and its
    smallest consistent set (from the exact summary `table`). -#}
{% macro _combined_figures(combined, combinations, table, suffixes) -%}
  {%- set figures = [] -%}
  {%- for b in combinations -%}
    {%- set cells = [] -%}{%- for c in b -%}{%- for x in suffixes -%}{%- do cells.append(dbt_deid.ident(c ~ x)) -%}{%- endfor -%}{%- endfor -%}
    {%- set smallest_class = run_query("select min(n) from (select count(*) as n from " ~ combined ~ " group by " ~ cells | join(', ') ~ ") as c").rows[0][0] -%}
    {%- set exact = [] -%}
    {%- for r in table.rows -%}{%- if r[0] == b | join('+') and r[2] is not none -%}{%- do exact.append(r[2] | int) -%}{%- endif -%}{%- endfor -%}
    {%- do figures.append({'combination': b | join('+'), 'smallest_class': smallest_class | int if smallest_class is not none else none,
        'min_consistent': exact[0] if exact else none}) -%}
  {%- endfor -%}
  {{ return(figures) }}
{%- endmacro %}

{#- Appends to `parts` one message per combination of the exact summary `table` with records
    below k, and to `mins` each combination's smallest consistent set. -#}
{% macro _combined_below_k(table, k, parts, mins) -%}
  {%- for r in table.rows -%}
    {%- if r[2] is not none -%}{%- do mins.append(r[2] | int) -%}{%- endif -%}
    {%- if (r[3] | int) > 0 -%}
      {%- do parts.append(r[0] ~ ': ' ~ r[3] ~ ' record(s) consistent with fewer than k = ' ~ k ~ ' combined records (smallest ' ~ r[2] ~ ')') -%}
    {%- endif -%}
  {%- endfor -%}
{%- endmacro %}

{#- The combined view: one row per record state (record key and true values at the released
    levels) found in the candidate or in an earlier release of the same line. Per released QI,
    `<qi>` is the cell revealed by any release holding that state (NULL only when suppressed,
    or not released, in every one) and `<qi>__generalized` its true value. A record whose true
    values changed between versions (a corrected value, a moved hierarchy code) is one row per
    state: its earlier cells stay a record of their own, as recipients hold them, and its new
    values are a new record (the rule of docs/living-release.md, issue 32); `deid_changed_any`
    marks those rows, and `record_key` lets the gate count each record once
    (combined_persons_sql, review 19: recipients link a record's rows across versions). -#}
{% macro combined_view_sql(cfg, truth, key, store) -%}
  {{ return(dbt_deid.own(adapter.dispatch('combined_view_sql', 'dbt_deid'))(cfg, truth, key, store)) }}
{%- endmacro %}

{% macro default__combined_view_sql(cfg, truth, key, store) -%}
  {%- set qis = cfg.released_qis -%}
  {%- set have = adapter.get_columns_in_relation(store) | map(attribute='name') | map('lower') | list -%}
  {%- set s = dbt.type_string() -%}
  with all_rows as (
    select {{ dbt_deid.keyed_record_hash_sql('t.' ~ dbt_deid.ident(cfg.record_id), 'k') }} as record_key, 1 as is_candidate
      {%- for q in qis %}, t.{{ dbt_deid.ident(q) }} as {{ dbt_deid.ident(q) }}, t.{{ dbt_deid.ident(q ~ '__generalized') }} as {{ dbt_deid.ident(q ~ '__generalized') }}{% endfor %}
    from {{ truth }} as t
    cross join {{ key }} as k
    union all
    select r.record_key, 0 as is_candidate
      {%- for q in qis %}
      {%- if q | lower in have and (q ~ '__generalized') | lower in have %}, r.{{ dbt_deid.ident(q) }}, coalesce(r.{{ dbt_deid.ident(q ~ '__generalized') }}, r.{{ dbt_deid.ident(q) }})
      {%- else %}, cast(null as {{ s }}), cast(null as {{ s }}){% endif %}
      {%- endfor %}
    from {{ store }} as r
    where {{ dbt_deid.line_rows_condition(cfg, 'r') }}
  ),
  merged as (
    select record_key
      {%- for q in qis %}
      , {{ dbt_deid.ident(q ~ '__generalized') }}, max({{ dbt_deid.ident(q) }}) as {{ dbt_deid.ident(q) }}
      {%- endfor %}
    from all_rows
    group by record_key{% for q in qis %}, {{ dbt_deid.ident(q ~ '__generalized') }}{% endfor %}
  )
  select record_key,
    {%- for q in qis %}
    {{ dbt_deid.ident(q) }}, {{ dbt_deid.ident(q ~ '__generalized') }},
    {%- endfor %}
    case when count(*) over (partition by record_key) > 1 then 1 else 0 end as deid_changed_any
  from merged
{%- endmacro %}

{#- `base` updated with the keyword arguments (a new dict). -#}
{% macro _with(base) -%}
  {%- set out = {} -%}{%- do out.update(base) -%}{%- do out.update(kwargs) -%}
  {{ return(out) }}
{%- endmacro %}

{#- The gate's refusal of a line it cannot combine: `items` (at most five shown) shared with
    the earlier releases `of_names`, what to change, and the audited way to start over. -#}
{% macro _combine_refused(base, items, shared, of_names, what, fix) -%}
  {{ return(dbt_deid._with(base, passed=false, failures=items | length, records_shared=shared,
      message="combined releases: " ~ shared ~ " record(s) are shared with earlier release(s) of " ~ of_names ~ " " ~ what ~ ": " ~ (items | unique | list)[:5] | join('; ') ~ "; " ~ fix ~ ", or start the line over explicitly with the setting `restart: {reason: '...'}` (audited: written into the history)")) }}
{%- endmacro %}
