{#- The stored rows of each published release bound to what was written at publish (review 19,
    F2; docs/combined-lines.md, "Review 19 F2: the store's rows bound to their history row").

    The gate combined_releases reads the per-record store (deid_release_records: each published
    release's records, their cells and true values) as the truth of what recipients hold, and
    hierarchy_moves reads deid_released_hierarchies as the mapping each version released.
    store_integrity_problems counts rows and checks keys only, so an UPDATE that blanked a
    version's stored cells (true values kept: an erasure, or a "minimisation" of the store) made
    a refused level change publish, and an edited released pair hid a moved code. So the
    publish step records, in the history row it writes (line_json's `store_check` and
    `hierarchy_check`), an order-independent fingerprint of the rows it wrote for the release
    (every column it wrote: keys, line columns, cells, true values; the pairs with their levels),
    and every build of the line recomputes them and refuses a release whose rows differ,
    naming the table, the release and its version, never a value.

    The fingerprint is the engines' additive multiset hash (table_fingerprint.sql:
    fingerprint_select_sql; PostgreSQL's row text built once in a LATERAL), grouped by
    release_id, so one scan of the store checks every release of the line; an engine without
    that form fingerprints each release with table_fingerprint. `form` records the engine and
    this SQL's version: a row recorded by another form (another engine, a later change of the
    hash) is not compared (an engine upgrade that changed its hash would otherwise refuse
    every line as edited). -#}

{#- The fingerprint form recorded with a store check: the engine and the version of this SQL. -#}
{% macro store_check_form() -%}
  {{ return(target.type ~ '-1') }}
{%- endmacro %}

{#- {release_id: [group, ...]} for the rows of each of `release_ids` in `relation` (an id without
    rows is absent): the rows grouped by `constants` (columns written with one value per
    release: its name, version, invocation, relation, line, package version, key
    fingerprint), each group {'constants': {column: value as text}, 'rows': n, 'hash': the
    fingerprint of `columns`, the columns that vary from row to row}. A release as written is
    one group; a constant edited on some rows makes another. Constants are compared by the
    GROUP BY (the engine's own hash of the values), not hashed as row text: on PostgreSQL the
    row text and its two hashes are the cost (bench/bench_store_check.py). One grouped scan on
    the additive engines; elsewhere table_fingerprint per release over every column (one group,
    no constants). -#}
{% macro stored_fingerprints(relation, columns, release_ids, constants=[]) -%}
  {%- set out = {} -%}
  {%- if not release_ids -%}{{ return(out) }}{%- endif -%}
  {%- set ids = [] -%}{%- for i in release_ids -%}{%- do ids.append(dbt_deid.literal(i)) -%}{%- endfor -%}
  {%- set others = constants | reject('equalto', 'release_id') | list -%}
  {%- if not dbt_deid.stored_constants_grouped() -%}
    {%- set columns = others + columns -%}{%- set others = [] -%}
  {%- endif -%}
  {%- set sql = dbt_deid.stored_fingerprints_sql(relation, columns, ids | join(', '), others) -%}
  {%- if sql -%}
    {%- for r in run_query(sql).rows -%}
      {%- set values = {} -%}
      {%- for c in others -%}{%- do values.update({c: r[loop.index]}) -%}{%- endfor -%}
      {%- do out.setdefault(r[0], []).append({'constants': values, 'rows': r[others | length + 1] | int, 'hash': r[others | length + 2]}) -%}
    {%- endfor -%}
  {%- else -%}
    {%- for i in release_ids -%}
      {%- set fp = dbt_deid.table_fingerprint("(select * from " ~ relation ~ " where release_id = " ~ dbt_deid.literal(i) ~ ") as deid_release_rows__", others + columns) -%}
      {%- if fp.rows | int > 0 -%}{%- do out.update({i: [{'constants': {}, 'rows': fp.rows | int, 'hash': fp.hash}]}) -%}{%- endif -%}
    {%- endfor -%}
  {%- endif -%}
  {{ return(out) }}
{%- endmacro %}

{#- Whether stored_fingerprints groups the constant columns (true) or hashes them with the row
    (false). DuckDB hashes typed values with its fast hash(), and a GROUP BY of ten text columns
    cost it more than hashing them: 9.7 s against 6.0 s for 9.5 million rows (4 versions of
    2.4 million records, load 13; bench/bench_store_check.py). PostgreSQL builds each row's
    text (record_out) and hashes it twice: there the GROUP BY is the cheaper form. -#}
{% macro stored_constants_grouped() -%}
  {{ return(dbt_deid.own(adapter.dispatch('stored_constants_grouped', 'dbt_deid'))()) }}
{%- endmacro %}

{% macro default__stored_constants_grouped() -%}{{ return(true) }}{%- endmacro %}

{% macro duckdb__stored_constants_grouped() -%}{{ return(false) }}{%- endmacro %}

{#- SQL of (release_id, each of `constants` as text, row_count, fingerprint of `columns`) per
    release in `ids_sql` (quoted ids, comma separated) and values of `constants`; none where
    the engine has no additive form. -#}
{% macro stored_fingerprints_sql(relation, columns, ids_sql, constants=[]) -%}
  {{ return(dbt_deid.own(adapter.dispatch('stored_fingerprints_sql', 'dbt_deid'))(relation, columns, ids_sql, constants)) }}
{%- endmacro %}

{% macro _stored_constants_sql(constants) -%}
  {%- set out = [] -%}
  {%- for c in constants -%}{%- do out.append('cast(' ~ dbt_deid.ident(c) ~ ' as ' ~ dbt.type_string() ~ ')') -%}{%- endfor -%}
  {{ return(out) }}
{%- endmacro %}

{% macro default__stored_fingerprints_sql(relation, columns, ids_sql, constants=[]) -%}
  {%- set select = dbt_deid.fingerprint_select_sql(columns) -%}
  {%- if not select -%}{{ return(none) }}{%- endif -%}
  {%- set keys = ['release_id'] + dbt_deid._stored_constants_sql(constants) -%}
  {{ return("select " ~ keys | join(', ') ~ ", " ~ select ~ " from " ~ relation ~ " where release_id in (" ~ ids_sql ~ ") group by " ~ keys | join(', ')) }}
{%- endmacro %}

{#- PostgreSQL: the row's text built once per row (no common-subexpression elimination: the two
    hashes would build it twice), as postgres__table_fingerprint_sql. -#}
{% macro postgres__stored_fingerprints_sql(relation, columns, ids_sql, constants=[]) -%}
  {%- set keys = ['release_id'] + dbt_deid._stored_constants_sql(constants) -%}
  {{ return("select " ~ keys | join(', ') ~ ", " ~ dbt_deid.postgres_fingerprint_sums_sql(columns, 'deid_fp__.deid_row_text__', none, ['row_count', 'fingerprint'])
      ~ " from " ~ relation ~ " cross join lateral (select " ~ dbt_deid.postgres_fingerprint_row_text(columns, '') ~ " as deid_row_text__ offset 0) as deid_fp__"
      ~ " where release_id in (" ~ ids_sql ~ ") group by " ~ keys | join(', ')) }}
{%- endmacro %}

{#- The groups of stored_fingerprints as one text (sorted, JSON), for comparison. -#}
{% macro _stored_groups_text(groups) -%}
  {%- set out = [] -%}
  {%- for g in groups or [] -%}
    {%- set values = {} -%}
    {%- for c, v in (g.constants or {}).items() -%}{%- do values.update({c: none if v is none else v | string}) -%}{%- endfor -%}
    {%- do out.append(tojson({'constants': values, 'rows': g.rows | int, 'hash': g.hash}, sort_keys=true)) -%}
  {%- endfor -%}
  {{ return(out | sort | join('\n')) }}
{%- endmacro %}

{#- The check recorded for `release_id`'s rows in `relation` (written just now): {columns,
    constants (the column names), groups (stored_fingerprints': one as written), form}; the
    history row keeps it in line_json. -#}
{% macro stored_rows_check(relation, columns, release_id, constants=[]) -%}
  {%- set groups = dbt_deid.stored_fingerprints(relation, columns, [release_id], constants).get(release_id) or [] -%}
  {{ return({'columns': columns | list, 'constants': constants | list, 'groups': groups, 'form': dbt_deid.store_check_form()}) }}
{%- endmacro %}

{#- The releases among `release_ids` whose rows in `relation` are not those their history row
    recorded (line_json's `field`: store_check or hierarchy_check), as a list of labels
    ("<name> version <v> (release <id>)"); releases recorded without a check, or by another
    fingerprint form, are not compared (published before this package version kept them:
    docs/combined-lines.md). A column of the check missing from the relation is a difference. -#}
{% macro stored_rows_edited(relation, history, release_ids, field) -%}
  {%- set out = [] -%}
  {%- if not release_ids or adapter.get_relation(relation.database, relation.schema, relation.identifier) is none -%}{{ return(out) }}{%- endif -%}
  {%- if adapter.get_relation(history.database, history.schema, history.identifier) is none -%}{{ return(out) }}{%- endif -%}
  {%- if 'line_json' not in adapter.get_columns_in_relation(history) | map(attribute='name') | map('lower') | list -%}{{ return(out) }}{%- endif -%}
  {%- set have = adapter.get_columns_in_relation(relation) | map(attribute='name') | map('lower') | list -%}
  {%- set ids = [] -%}{%- for i in release_ids -%}{%- do ids.append(dbt_deid.literal(i)) -%}{%- endfor -%}
  {%- set form = dbt_deid.store_check_form() -%}
  {%- set groups = {} -%}{%- set order = [] -%}{%- set expected = {} -%}{%- set labels = {} -%}
  {%- for r in run_query("select release_id, release_name, release_version, line_json from " ~ history ~ " where status = 'published' and release_id in (" ~ ids | join(', ') ~ ") order by recorded_at, release_id").rows -%}
    {%- set line = fromjson(r[3]) if r[3] else none -%}
    {%- set check = line.get(field) if line is mapping else none -%}
    {%- if check is mapping and check.get('form') == form and check.get('columns') -%}
      {%- set label = r[1] ~ ' version ' ~ r[2] ~ ' (release ' ~ r[0] ~ ')' -%}
      {%- do labels.update({r[0]: label}) -%}{%- do expected.update({r[0]: check}) -%}
      {%- set lost = ((check.get('constants') or []) + check.columns) | map('lower') | reject('in', have) | list -%}
      {%- if lost -%}
        {%- do out.append(label ~ ' (column(s) ' ~ lost | join(', ') ~ ' missing)') -%}
      {%- else -%}
        {%- set key = (check.get('constants') or []) | join('|') ~ '#' ~ check.columns | join('|') -%}
        {%- if key not in groups -%}{%- do order.append(key) -%}{%- do groups.update({key: []}) -%}{%- endif -%}
        {%- do groups[key].append(r[0]) -%}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {%- for key in order -%}
    {%- set first = expected[groups[key][0]] -%}
    {%- set got = dbt_deid.stored_fingerprints(relation, first.columns, groups[key], first.get('constants') or []) -%}
    {%- for i in groups[key] -%}
      {%- if dbt_deid._stored_groups_text(got.get(i)) != dbt_deid._stored_groups_text(expected[i].get('groups')) -%}
        {%- do out.append(labels[i]) -%}
      {%- endif -%}
    {%- endfor -%}
  {%- endfor -%}
  {{ return(out) }}
{%- endmacro %}

{#- The gate's refusal for the per-record store's rows edited (a list of one message, or []):
    the releases among `release_ids` (the earlier releases the gate combines) whose stored rows
    are not the rows written at publish. -#}
{% macro stored_rows_edited_problems(store, history, release_ids) -%}
  {%- set edited = dbt_deid.stored_rows_edited(store, history, release_ids, 'store_check') -%}
  {%- if edited | length == 0 -%}{{ return([]) }}{%- endif -%}
  {{ return(["the per-record store " ~ store ~ " does not hold the rows written when release(s) " ~ edited | join(', ') ~ " were published (their fingerprint, recorded in the release history's line_json, differs: cells, true values or keys changed, added or deleted by hand; the combined view reads the stored cells as what recipients hold). Restore the store from a backup by replacing its rows; an erasure or a minimisation of the store is honoured by starting the line over with the setting `restart: {reason: '...'}`, never by editing the store"]) }}
{%- endmacro %}
