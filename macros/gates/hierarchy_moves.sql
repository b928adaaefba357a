{#- A value the line's published versions released in one group, in another group now (review
    8, finding 2; docs/combined-lines.md, "An edited hierarchy").

    Compares the mapping every published version of the line kept (deid_released_hierarchies,
    macros/publish/released_hierarchies.sql) with the mapping of this build, for the values in
    both: at this release's level, the pairs of `records` (`<source>__original` ->
    `<qi><suffix>`: what this version releases); at another level a version of the line
    released (mixed levels), today's deid_hierarchy. A hierarchy may grow (a new value gets a
    group: not in the store, nothing to compare) and may be regenerated (`dbt seed
    --full-refresh`: the content is compared, not the table); a released value that changed
    group (or label) at a released level is a move: the record's original value did not change,
    so both groups are true at once and a recipient holding both versions intersects them,
    which no combined view of record states can check.

    Also checks the store is whole for the line: each version whose history row counts its
    pairs (hierarchy_values, written with it) must still hold that many; versions published
    before dbt_deid kept the mapping (no count) are not compared (docs/combined-lines.md). And
    unedited (review 19, F2): each version whose history row recorded the fingerprint of its
    pairs (line_json's hierarchy_check) must still hold those very pairs (a released pair
    updated to a moved code's new group hid the move; stored_rows_check.sql).

    Returns {moves: [{qi, hierarchy, level, values}], lost: [version text], edited: [version
    text], values: the number of moved values}; counts and names only, never a value. `release_ids` are the line's
    published releases (the store rows of the line), `history` deid_release_history (or none). -#}
{% macro hierarchy_moves(cfg, records, suffix, release_ids, history) -%}
  {{ return(dbt_deid.own(adapter.dispatch('hierarchy_moves', 'dbt_deid'))(cfg, records, suffix, release_ids, history)) }}
{%- endmacro %}

{% macro default__hierarchy_moves(cfg, records, suffix, release_ids, history) -%}
  {%- set out = {'moves': [], 'lost': [], 'edited': [], 'total': 0} -%}
  {%- set mapped = dbt_deid.hierarchy_mapped_qis(cfg) -%}
  {%- set names = {} -%}{%- for m in mapped -%}{%- do names.update({m.qi: m}) -%}{%- endfor -%}
  {%- set store = dbt_deid.released_hierarchies_relation(records) -%}
  {%- if not release_ids or mapped | length == 0 -%}{{ return(out) }}{%- endif -%}
  {%- set ids = [] -%}{%- for i in release_ids -%}{%- do ids.append(dbt_deid.literal(i)) -%}{%- endfor -%}
  {%- set found = adapter.get_relation(store.database, store.schema, store.identifier) is not none -%}
  {%- set stored = {} -%}
  {%- if found -%}
    {%- for r in run_query("select release_id, count(*) from " ~ store ~ " where release_id in (" ~ ids | join(', ') ~ ") group by release_id").rows -%}
      {%- do stored.update({r[0]: r[1] | int}) -%}
    {%- endfor -%}
  {%- endif -%}
  {#- the store whole: every version of the line that counted its pairs still holds them -#}
  {%- if history is not none and adapter.get_relation(history.database, history.schema, history.identifier) is not none
        and 'hierarchy_values' in adapter.get_columns_in_relation(history) | map(attribute='name') | map('lower') | list -%}
    {%- for r in run_query("select release_id, release_name, release_version, hierarchy_values from " ~ history ~ " where status = 'published' and hierarchy_values is not null and release_id in (" ~ ids | join(', ') ~ ") order by recorded_at, release_id").rows -%}
      {%- if stored.get(r[0], 0) != r[3] | int -%}
        {%- do out.lost.append(r[1] ~ " version " ~ r[2] ~ " (" ~ stored.get(r[0], 0) ~ " of its " ~ r[3] ~ " hierarchy value(s))") -%}
      {%- endif -%}
    {%- endfor -%}
  {%- endif -%}
  {%- if history is not none -%}
    {%- do out.edited.extend(dbt_deid.stored_rows_edited(store, history, release_ids, 'hierarchy_check')) -%}
  {%- endif -%}
  {%- if not found or stored | length == 0 -%}{{ return(out) }}{%- endif -%}
  {#- this build's mapping: this release's level from `records`, other levels from deid_hierarchy -#}
  {%- set current = [dbt_deid.released_hierarchy_pairs_sql(cfg, records, suffix)] -%}
  {%- set hierarchy = dbt_deid._graph_relation(dbt_deid.release_node_name('deid_hierarchy')) -%}
  {%- if hierarchy is not none -%}
    {%- set other = [] -%}
    {%- for m in mapped -%}{%- do other.append("(h.qi_name = " ~ dbt_deid.literal(m.qi) ~ " and h.level <> " ~ m.level ~ ")") -%}{%- endfor -%}
    {%- do current.append("select h.qi_name, h.level, h.original_value, h.generalized_value from " ~ hierarchy ~ " as h where " ~ other | join(' or ')) -%}
  {%- endif -%}
  {%- set rows = run_query("select s.qi_name, s.level, count(distinct s.original_value) from " ~ store ~ " as s join (" ~ current | join('\nunion all\n') ~ ") as c"
      ~ " on c.qi_name = s.qi_name and c.level = s.level and c.original_value = s.original_value"
      ~ " where s.release_id in (" ~ ids | join(', ') ~ ") and c.generalized_value <> s.generalized_value group by s.qi_name, s.level order by s.qi_name, s.level").rows -%}
  {%- for r in rows -%}
    {%- do out.moves.append({'qi': r[0], 'hierarchy': names[r[0]].hierarchy if r[0] in names else '(a hierarchy no longer set)', 'level': r[1] | int, 'count': r[2] | int}) -%}
    {%- do out.update({'total': out.total + (r[2] | int)}) -%}
  {%- endfor -%}
  {{ return(out) }}
{%- endmacro %}

{#- The refusal text of hierarchy_moves' result (counts, hierarchy and QI names, versions). -#}
{% macro hierarchy_moves_message(moved) -%}
  {%- set parts = [] -%}
  {%- for m in moved.moves -%}
    {%- do parts.append("hierarchy " ~ m.hierarchy ~ " of quasi-identifier " ~ m.qi ~ ": " ~ m.count ~ " value(s) released by the line's published versions at level " ~ m.level ~ " are in another group now") -%}
  {%- endfor -%}
  {%- if moved.lost -%}
    {%- do parts.append("the hierarchy store deid_released_hierarchies lost the mapping of " ~ moved.lost | join(', ') ~ ", so a moved value cannot be seen; restore it from a backup (never edit it)") -%}
  {%- endif -%}
  {%- if moved.get('edited') -%}
    {%- do parts.append("the hierarchy store deid_released_hierarchies does not hold the mapping released by " ~ moved.edited | join(', ') ~ " (its fingerprint, recorded in the release history's line_json, differs: pairs changed, added or deleted by hand), so a moved value cannot be seen; restore it from a backup (never edit it)") -%}
  {%- endif -%}
  {{ return(parts | join('; ') ~ ". A value's original did not change, so its record is in both groups at once and a recipient holding both versions intersects them. A hierarchy may grow (new values get a group), but a released value keeps its group: restore the earlier grouping of the moved values, or start the line over explicitly with the setting `restart: {reason: '...'}` (audited: written into the history)") }}
{%- endmacro %}

{#- Before a refresh of a line (deid_patterns): fail the build naming the moved values' hierarchy
    and QI (counts only) when hierarchy_moves finds any, before the refresh rebuilds the records
    (its changed-record rule would read a moved value as a changed record). `records` is
    deid_generalized (`<qi>` at the released level), `store` the per-record store. -#}
{% macro assert_no_hierarchy_moves(cfg, records, store) -%}
  {%- if not execute -%}{{ return(none) }}{%- endif -%}
  {%- set moved = dbt_deid.hierarchy_moves(cfg, records, '', dbt_deid.line_release_ids(cfg, store), dbt_deid.line_history_relation()) -%}
  {%- if moved.moves or moved.lost or moved.edited -%}
    {{ exceptions.raise_compiler_error("model " ~ this.identifier ~ ": release '" ~ cfg.name ~ "': nothing is published, the last published version stays: " ~ dbt_deid.hierarchy_moves_message(moved)) }}
  {%- endif -%}
{%- endmacro %}
