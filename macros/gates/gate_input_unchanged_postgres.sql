{#- PostgreSQL form of gate_input_unchanged_sql (issue 37, session 15): the default query with
    each row's fingerprint text built once per row instead of once per seed. PostgreSQL has no
    common-subexpression elimination: the single scan's three fingerprints (the checked release,
    the source, the pattern proof) built each row's text twice; at 2,375,331 records the query
    took 96 s with them and 34 s without on the loaded 2-core machine (docs/performance.md,
    "PostgreSQL at 2.4M, session 15"). Here every row text of the default's select list
    (postgres_fingerprint_row_text: the same expressions, so the same hashes and the same
    values) is computed once per row (session 15: a LATERAL subquery kept from being pulled up by
    OFFSET 0; session 16: one-element arrays unnested in FROM, which parallel workers can run),
    and the sums read its columns. A default form that no longer holds those texts is a
    compile error (a bug of dbt_deid), not a silently different query. Session 16: the full
    join of the source and the checked release as the union of a left join and an anti join
    (postgres_gate_scan_union), which PostgreSQL runs in parallel; the full join where that
    rewrite does not apply. Session 20: the checked release's fingerprint and the pattern
    proof hash each row by its record (postgres_record_hash_sql, checked_fingerprint.sql), no
    row text: the source's text alone is built (its fingerprint is the history's input_hash,
    table_fingerprint's value). -#}
{% macro postgres__gate_input_unchanged_sql(truth, cfg, fingerprint_columns=none, source_columns=none, pattern_columns=none, levels=none, propagation=none) -%}
  {%- set sql = dbt_deid.default__gate_input_unchanged_sql(truth, cfg, fingerprint_columns, source_columns, pattern_columns, levels, propagation) -%}
  {%- if fingerprint_columns is none -%}{{ return(sql) }}{%- endif -%}
  {%- if pattern_columns is not none -%}
    {#- the pattern proof's weight is 0/1 here (the checked release's rows): its hashes summed as
        bigint where the row is present (postgres_flag_fingerprint_select_sql), the same value
        without a numeric cast and product per row (session 18) -#}
    {%- set present = 't.deid_present__ = 1' -%}
    {%- set names = ['pattern_rows', 'pattern_fingerprint'] -%}
    {%- set weighted = dbt_deid.weighted_fingerprint_select_sql(pattern_columns, 't.', 'case when ' ~ present ~ ' then 1 else 0 end', names) -%}
    {%- if sql.count(weighted) != 1 -%}
      {{ exceptions.raise_compiler_error("dbt_deid.postgres__gate_input_unchanged_sql: found " ~ sql.count(weighted) ~ " pattern proofs, expected 1; this is a bug of dbt_deid (the PostgreSQL form no longer matches the default form); nothing was published") }}
    {%- endif -%}
    {%- set sql = sql.replace(weighted, dbt_deid.postgres_flag_fingerprint_select_sql(pattern_columns, 't.', present, names)) -%}
  {%- endif -%}
  {#- the checked release's fingerprint (its checked_hash) by its record hash
      (postgres_record_fingerprint_select_sql; session 20): no row text -#}
  {%- set plain = dbt_deid.fingerprint_select_sql(fingerprint_columns, 't.', 't.deid_present__ = 1') -%}
  {%- if sql.count(plain) != 1 -%}
    {{ exceptions.raise_compiler_error("dbt_deid.postgres__gate_input_unchanged_sql: found " ~ sql.count(plain) ~ " fingerprints of the checked release, expected 1; this is a bug of dbt_deid (the PostgreSQL form no longer matches the default form); nothing was published") }}
  {%- endif -%}
  {%- set sql = sql.replace(plain, dbt_deid.postgres_record_fingerprint_select_sql(fingerprint_columns, 't.', 't.deid_present__ = 1', ['row_count', 'fingerprint'])) -%}
  {#- the source's fingerprint keeps table_fingerprint's row text (the history records the
      input's fingerprint, input_hash): built once per row -#}
  {%- set producers = [] -%}
  {%- if source_columns is not none -%}{%- do producers.append(dbt_deid.postgres_fingerprint_row_text(source_columns, 'src.')) -%}{%- endif -%}
  {%- set texts = [] -%}
  {%- for text in producers if text not in texts -%}{%- do texts.append(text) -%}{%- endfor -%}
  {%- set tail = ') as s' -%}
  {%- if not sql.rstrip().endswith(tail) -%}
    {{ exceptions.raise_compiler_error("dbt_deid.postgres__gate_input_unchanged_sql: the default query no longer ends with its subquery `s`; this is a bug of dbt_deid (the PostgreSQL form no longer matches the default form); nothing was published") }}
  {%- endif -%}
  {%- set arrays = [] -%}{%- set names = [] -%}
  {#- (a `set` inside the loop would not outlive it: the query is kept in a dict) -#}
  {%- set out = {'sql': sql} -%}
  {%- for text in texts -%}
    {%- if out.sql.count(text) != 2 * producers.count(text) -%}
      {{ exceptions.raise_compiler_error("dbt_deid.postgres__gate_input_unchanged_sql: found " ~ out.sql.count(text) ~ " uses of a fingerprint's row text, expected " ~ 2 * producers.count(text) ~ " (one per seed); this is a bug of dbt_deid (the PostgreSQL form no longer matches the default form); nothing was published") }}
    {%- endif -%}
    {%- do out.update({'sql': out.sql.replace(text, 'deid_fp__.deid_row_text_' ~ loop.index ~ '__')}) -%}
    {%- do arrays.append('array[' ~ text ~ ']') -%}
    {%- do names.append('deid_row_text_' ~ loop.index ~ '__') -%}
  {%- endfor -%}
  {%- set body = out.sql.rstrip() -%}
  {%- set cut = body.rfind(tail) -%}
  {#- each text once per row: one-element arrays unnested in FROM (one row per row; a function
      scan, which parallel workers may run, where a LATERAL subquery kept from being pulled up
      by OFFSET 0 runs in the leader only) -#}
  {%- set fp = ('\n    cross join lateral unnest(' ~ arrays | join(', ') ~ ') as deid_fp__(' ~ names | join(', ') ~ ')') if arrays else '' -%}
  {%- set select_part = body[:cut].rstrip() -%}
  {%- set union = dbt_deid.postgres_gate_scan_union(select_part, fp, truth, cfg, source_columns, levels) -%}
  {{ return((union if union is not none else select_part ~ fp) ~ '\n  ' ~ tail) }}
{%- endmacro %}

{#- PostgreSQL: the weighted fingerprint (postgres__weighted_fingerprint_select_sql) of the rows
    where `present` holds, each weighing 1 and the others 0, with the row hashes summed as bigint
    where `present` holds (sum(bigint): exact, a numeric result) instead of each hash cast to
    numeric and multiplied by its 0/1 weight: the same value (the sum of the hashes of the
    present rows; 0 when none is), without two numeric casts, products and additions per row
    (the gate table's scan of 2.4 million records; issue 37, session 18). Same row hash
    (postgres_record_hash_sql, session 20), same row count. -#}
{% macro postgres_flag_fingerprint_select_sql(columns, prefix, present, names) -%}
  {%- set weight = 'case when ' ~ present ~ ' then 1 else 0 end' -%}
  {{ return("cast(coalesce(sum(" ~ weight ~ "), 0) as numeric) as " ~ names[0] ~ ",
    md5(" ~ dbt_deid.literal(columns | join('|')) ~ " || '#' || cast(cast(coalesce(sum(" ~ weight ~ "), 0) as numeric) as text) || '#'
        || cast(coalesce(sum(case when " ~ present ~ " then " ~ dbt_deid.postgres_record_hash_sql(columns, prefix, 0) ~ " end), 0) as text) || ':'
        || cast(coalesce(sum(case when " ~ present ~ " then " ~ dbt_deid.postgres_record_hash_sql(columns, prefix, 1) ~ " end), 0) as text)) as " ~ names[1]) }}
{%- endmacro %}

{#- Redshift dispatches to postgres__ forms: the default query. -#}
{% macro redshift__gate_input_unchanged_sql(truth, cfg, fingerprint_columns=none, source_columns=none, pattern_columns=none, levels=none, propagation=none) -%}
  {{ return(dbt_deid.default__gate_input_unchanged_sql(truth, cfg, fingerprint_columns, source_columns, pattern_columns, levels, propagation)) }}
{%- endmacro %}
