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
    * the store dropped or emptied (hole 2): a published discharge release with no store rows
      refuses every release of the project (only this release name's versions of an earlier
      epoch, left behind by its own restart, are not asked for: another name's restart must not
      excuse a line that never opted in),
      whatever relation it is built from (a fresh store over a moved copy would otherwise start
      the protection over unnoticed).
    * the key replaced together with the store's fingerprints (review 7, finding 5): the
      history row of each published version records the key's fingerprint (line_json's
      `key_check`, from the gate); one that is not the current key's refuses.
    * the history and the store both dropped (review 7, finding 4): the published table
      (`published`, this release's) holds rows while the history records no published version
      of it (orphaned_publication_problems).
    A list of messages (release names, versions, ids and counts only). `key` is the key relation
    (none when missing or not one row: refused elsewhere); `known` the release ids the caller
    already names when they have no store rows. One scan of the store, grouped by release. -#}
{% macro store_integrity_problems(cfg, store, key, history, store_found, known=[], published=none) -%}
  {%- set out = [] -%}
  {%- set history_found = adapter.get_relation(history.database, history.schema, history.identifier) is not none -%}
  {%- do out.extend(dbt_deid.orphaned_publication_problems(published, history, history_found)) -%}
  {%- if not history_found -%}{{ return(out) }}{%- endif -%}
  {%- set have = adapter.get_columns_in_relation(history) | map(attribute='name') | map('lower') | list -%}
  {%- set s = dbt.type_string() -%}
  {%- set kind = "release_kind" if 'release_kind' in have else "cast(null as " ~ s ~ ")" -%}
  {%- set line = "line_json" if 'line_json' in have else "cast(null as " ~ s ~ ")" -%}
  {%- set published = run_query("select release_id, release_name, release_version, " ~ line ~ ", published_rows from " ~ history
        ~ " where status = 'published' and (" ~ kind ~ " = 'discharge' or " ~ kind ~ " is null) order by recorded_at, release_id").rows -%}
  {%- set counts = {} -%}{%- set foreign = [] -%}
  {%- if store_found -%}
    {%- set check = ("sum(case when r.key_check is null or r.key_check <> " ~ dbt_deid.key_check_sql('k') ~ " then 1 else 0 end)") if key is not none else "0" -%}
    {%- for r in run_query("select r.release_id, count(distinct r.record_key), " ~ check ~ " from " ~ store ~ " as r" ~ ((" cross join " ~ key ~ " as k") if key is not none else "") ~ " group by r.release_id order by 1").rows -%}
      {%- do counts.update({r[0]: r[1] | int}) -%}
      {%- if (r[2] or 0) | int > 0 -%}{%- do foreign.append(r[0] ~ ' (' ~ r[2] ~ ' rows)') -%}{%- endif -%}
    {%- endfor -%}
  {%- endif -%}
  {%- if foreign | length > 0 -%}
    {%- do out.append("the key in " ~ key ~ " is not the key that keyed the stored rows of release(s) " ~ foreign | join(', ') ~ " (the key was replaced, or the rows' key fingerprint key_check emptied: every record would look new, recipients would hold each record twice; restore the key and the store, or restart the line)") -%}
  {%- endif -%}
  {%- set epoch = dbt_deid.line_epoch() -%}
  {%- set missing = [] -%}{%- set short = [] -%}{%- set rekeyed = [] -%}
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
    {%- endif -%}
  {%- endfor -%}
  {%- if rekeyed | length > 0 -%}
    {%- do out.append("the key in " ~ key ~ " is not the key the release history recorded for release(s) " ~ rekeyed | join(', ') ~ " (the key was replaced, with the store's fingerprints rewritten to match it: every record would look new, recipients would hold each record twice; restore the key and the store from a backup)") -%}
  {%- endif -%}
  {%- if missing | length > 0 -%}
    {%- do out.append("published release(s) " ~ missing | join(', ') ~ " of this project have no per-record rows in " ~ store ~ " (the store was dropped or emptied: a release over any relation would start the protection over unnoticed)") -%}
  {%- endif -%}
  {%- if short | length > 0 -%}
    {%- do out.append("the per-record store " ~ store ~ " holds fewer rows than published for release(s) " ~ short | join(', ') ~ " (rows deleted: their records would look new)") -%}
  {%- endif -%}
  {{ return(out) }}
{%- endmacro %}

{#- The history and the store both dropped or emptied (review 7, finding 4): each checks the
    other, so their joint absence started a fresh "version 1" over the published table. The
    published table `published` (the release's own, `this` in the publish step) holding rows
    while the release history records no published discharge version of it (by its
    `published_relation`, without catalog; a row without one counts) is evidence of earlier
    publication: refused, unless the line is started over (`restart`, audited in the history).
    The first build of a project (no published table, or an empty one: `--empty`) publishes.
    A list of messages (none or one); [] when `published` is none. -#}
{% macro orphaned_publication_problems(published, history, history_found) -%}
  {%- if published is none or dbt_deid.line_epoch() != '' -%}{{ return([]) }}{%- endif -%}
  {%- if adapter.get_relation(published.database, published.schema, published.identifier) is none -%}{{ return([]) }}{%- endif -%}
  {%- if history_found -%}
    {%- set have = adapter.get_columns_in_relation(history) | map(attribute='name') | map('lower') | list -%}
    {%- set s = dbt.type_string() -%}
    {%- set kind = "release_kind" if 'release_kind' in have else "cast(null as " ~ s ~ ")" -%}
    {%- set rel = "published_relation" if 'published_relation' in have else "cast(null as " ~ s ~ ")" -%}
    {%- set mine = dbt_deid.kind_line_relation_key(published) -%}
    {%- for r in run_query("select distinct " ~ rel ~ " from " ~ history ~ " where status = 'published' and (" ~ kind ~ " = 'discharge' or " ~ kind ~ " is null)").rows -%}
      {%- if r[0] is none or dbt_deid.kind_line_relation_key(r[0]) == mine -%}{{ return([]) }}{%- endif -%}
    {%- endfor -%}
  {%- endif -%}
  {%- set n = run_query("select count(*) from (select 1 as one from " ~ published ~ " limit 1) as x").rows[0][0] | int -%}
  {%- if n == 0 -%}{{ return([]) }}{%- endif -%}
  {{ return(["the published table " ~ published ~ " holds rows, but the release history " ~ history ~ ("" if history_found else " (missing: dropped?)") ~ " records no published version of it (the history and the per-record store dropped or emptied: a fresh version 1 would be published over what recipients already hold)"]) }}
{%- endmacro %}

{#- The fingerprint of the key in `key_alias` (a row of deid_history_key joined into the query):
    a hash of a fixed label and the key, written into each store row (`key_check`) so a
    replaced key is seen; the key itself is never written. -#}
{% macro key_check_sql(key_alias) -%}
  {{ return(dbt.hash(dbt.concat(["'dbt_deid-key-check|'", key_alias ~ '.key_value']))) }}
{%- endmacro %}
