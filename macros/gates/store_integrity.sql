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
    A list of messages (release names, versions, ids and counts only). `key` is the key relation
    (none when missing or not one row: refused elsewhere); `known` the release ids the caller
    already names when they have no store rows. One scan of the store, grouped by release. -#}
{% macro store_integrity_problems(cfg, store, key, history, store_found, known=[]) -%}
  {%- set out = [] -%}
  {%- if adapter.get_relation(history.database, history.schema, history.identifier) is none -%}{{ return(out) }}{%- endif -%}
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
  {%- set missing = [] -%}{%- set short = [] -%}
  {%- for r in published -%}
    {%- set manifest = fromjson(r[3]) if r[3] else none -%}
    {%- set its_epoch = (manifest.get('epoch') or '') if manifest is mapping else '' -%}
    {%- set n = counts.get(r[0], 0) -%}
    {%- set label = r[1] ~ ' version ' ~ r[2] ~ ' (release ' ~ r[0] ~ ')' -%}
    {%- if n == 0 and (its_epoch == epoch or r[1] != cfg.name) and r[0] not in known and (r[4] is none or r[4] | int > 0) -%}
      {%- do missing.append(label) -%}
    {%- elif n > 0 and r[4] is not none and n < r[4] | int -%}
      {%- do short.append(label ~ ': ' ~ n ~ ' of ' ~ r[4] ~ ' rows') -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if missing | length > 0 -%}
    {%- do out.append("published release(s) " ~ missing | join(', ') ~ " of this project have no per-record rows in " ~ store ~ " (the store was dropped or emptied: a release over any relation would start the protection over unnoticed)") -%}
  {%- endif -%}
  {%- if short | length > 0 -%}
    {%- do out.append("the per-record store " ~ store ~ " holds fewer rows than published for release(s) " ~ short | join(', ') ~ " (rows deleted: their records would look new)") -%}
  {%- endif -%}
  {{ return(out) }}
{%- endmacro %}

{#- The fingerprint of the key in `key_alias` (a row of deid_history_key joined into the query):
    a hash of a fixed label and the key, written into each store row (`key_check`) so a
    replaced key is seen; the key itself is never written. -#}
{% macro key_check_sql(key_alias) -%}
  {{ return(dbt.hash(dbt.concat(["'dbt_deid-key-check|'", key_alias ~ '.key_value']))) }}
{%- endmacro %}
