{#- PostgreSQL: the gate table's single scan (postgres__gate_input_unchanged_sql) with its full
    outer join of the source and the checked release written as the union of its two parts,
    which PostgreSQL can run in parallel workers (PostgreSQL 15 never runs a full join in
    parallel; issue 37, session 16): the source left-joined with the checked release (every
    source record, with its checked row or none), then the checked rows whose record id no
    source record has (an anti join, `not exists`, before the level flags are joined to them).
    The same rows as the full join: a matched pair once per match, an unmatched record of
    either side once with nulls for the other (a null record id matches nothing, so such rows
    are in the anti join). The union `u` names the source's columns `deid_src__<column>` and
    keeps the checked release's; `select_part` (the default query's select list and
    aggregates, up to its FROM) and `fp` (the fingerprint texts' lateral) are rewritten to read
    them (`src.x` -> `u.deid_src__x`, `t.x` -> `u.x`). Returns none, and the caller keeps the
    full join, where the rewrite does not apply: not at execution time, a sampled release's
    whole-source scan, a source column name too long for the prefix (PostgreSQL's 63-byte
    names), a checked column named like a renamed one, or a reference the rewrite did not
    find. -#}
{% macro postgres_gate_scan_union(select_part, fp, truth, cfg, source_columns, levels) -%}
  {%- if not execute or (source_columns is not none and cfg.sample is not none) -%}{{ return(none) }}{%- endif -%}
  {%- set rid = dbt_deid.ident(cfg.record_id) -%}
  {%- set src = dbt_deid.source_input(cfg) if source_columns is none else dbt_deid.release_source(cfg) -%}
  {%- set hierarchy = dbt_deid.release_ref('deid_hierarchy') if levels is not none else none -%}
  {%- set checked = '(select *, 1 as deid_present__ from ' ~ truth ~ ')' if levels is none else dbt_deid.released_levels_flags_sql(cfg, truth, hierarchy, levels) -%}
  {%- set full = '\n    from (select *, 1 as deid_source__ from ' ~ src ~ ' as s0) as src\n    full outer join ' ~ checked ~ ' as t on t.' ~ rid ~ ' = src.' ~ rid -%}
  {%- if not select_part.endswith(full) or select_part.count(full) != 1 -%}{{ return(none) }}{%- endif -%}
  {%- set outer = select_part[:select_part | length - full | length] -%}
  {%- set src_columns = run_query('select * from ' ~ src ~ ' as s0 where 1 = 0').column_names -%}
  {%- set truth_columns = run_query('select * from ' ~ checked ~ ' as t where 1 = 0').column_names | map('lower') | list -%}
  {%- set named = [] -%}{%- set nulls = [] -%}
  {%- for c in src_columns -%}
    {%- if (c | length) > 50 or ('deid_src__' ~ c) | lower in truth_columns -%}{{ return(none) }}{%- endif -%}
    {%- set alias = '"deid_src__' ~ c | replace('"', '""') ~ '"' -%}
    {%- do named.append('s0."' ~ c | replace('"', '""') ~ '" as ' ~ alias) -%}
    {%- do nulls.append('null as ' ~ alias) -%}
  {%- endfor -%}
  {%- if 'deid_src__deid_source__' in truth_columns -%}{{ return(none) }}{%- endif -%}
  {%- set re = modules.re -%}
  {%- set renamed = [] -%}
  {%- for part in [outer, fp] -%}
    {#- the SQL's code between its string literals and quoted names, rewritten; a literal (the
        missing label) or a quoted name is kept as it is, but for a quoted name after `src.`,
        which gains the prefix (review 16, L3: a label holding " t." was rewritten) -#}
    {%- set state = namespace(text='', prefix=false, left=false) -%}
    {%- for piece in re.split("('(?:[^']|'')*'|\"(?:[^\"]|\"\")*\")", part) -%}
      {%- if loop.index is odd -%}
        {%- set c = re.sub('\\bsrc\\.([A-Za-z_][A-Za-z0-9_$]*)', 'u.deid_src__\\1', piece) -%}
        {%- set state.prefix = re.search('\\bsrc\\.$', c) is not none -%}
        {%- set c = re.sub('\\bsrc\\.$', 'u.', c) -%}
        {%- set c = re.sub('\\bt\\.', 'u.', c) -%}
        {%- if re.search('\\b(src|t|s0|t0)\\.', c) -%}{%- set state.left = true -%}{%- endif -%}
        {%- set state.text = state.text ~ c -%}
      {%- elif state.prefix and piece.startswith('"') -%}
        {%- set state.text = state.text ~ '"deid_src__' ~ piece[1:] -%}
      {%- elif state.prefix -%}
        {%- set state.left = true -%}
      {%- else -%}
        {%- set state.text = state.text ~ piece -%}
      {%- endif -%}
    {%- endfor -%}
    {%- if state.left -%}{{ return(none) }}{%- endif -%}
    {%- do renamed.append(state.text) -%}
  {%- endfor -%}
  {%- set unmatched = '(select * from ' ~ truth ~ ' as deid_t__ where not exists (select 1 from ' ~ src ~ ' as s0 where s0.' ~ rid ~ ' = deid_t__.' ~ rid ~ '))' -%}
  {%- set checked_unmatched = '(select *, 1 as deid_present__ from ' ~ unmatched ~ ' as deid_u__)' if levels is none else dbt_deid.released_levels_flags_sql(cfg, unmatched, hierarchy, levels) -%}
  {{ return(renamed[0] ~ '\n    from (select ' ~ named | join(', ') ~ ', 1 as deid_src__deid_source__, t.* from ' ~ src ~ ' as s0 left join ' ~ checked ~ ' as t on t.' ~ rid ~ ' = s0.' ~ rid
      ~ '\n      union all\n      select ' ~ nulls | join(', ') ~ ', null as deid_src__deid_source__, t.* from ' ~ checked_unmatched ~ ' as t) as u' ~ renamed[1]) }}
{%- endmacro %}
