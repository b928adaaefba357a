{#- The checked release's fingerprint: the gate table's checked_hash (gate_table_binding) and
    the value the publish step of a later invocation compares it with (read_gate_table), and the
    row hash of the pattern proof (the checked release's weighted fingerprint over the pattern
    columns against deid_suppressed_patterns', weighted_fingerprint_select_sql). These values
    are compared only with each other, within one engine and one package code (the gate table
    records its code digest): neither is written to the history, a report or a store (the
    history's input_hash and published_hash stay table_fingerprint's), so an engine may compute
    them its own way. The default: table_fingerprint. -#}
{% macro checked_fingerprint(truth) -%}
  {{ return(dbt_deid.own(adapter.dispatch('checked_fingerprint', 'dbt_deid'))(truth)) }}
{%- endmacro %}

{% macro default__checked_fingerprint(truth) -%}
  {{ return(dbt_deid.table_fingerprint(truth)) }}
{%- endmacro %}

{#- (Redshift dispatches to postgres__ forms: it has no hash_record_extended.) -#}
{% macro redshift__checked_fingerprint(truth) -%}
  {{ return(dbt_deid.table_fingerprint(truth)) }}
{%- endmacro %}

{#- PostgreSQL (issue 37, session 20): the additive multiset hash of table_fingerprint over
    every column of `truth`, each row hashed by postgres_record_hash_sql instead of its text
    (the record cast to text, then hashtextextended): the row texts were most of the gate
    table's scan at 2.4 million records (bench/bench_pg_statements.py, docs/performance.md,
    "Gate table and diagnostics forms, session 20"). -#}
{% macro postgres__checked_fingerprint(truth) -%}
  {%- set columns = adapter.get_columns_in_relation(truth) | map(attribute='name') | list -%}
  {%- set row = run_query('select ' ~ dbt_deid.postgres_record_fingerprint_select_sql(columns, '', none, ['row_count', 'fingerprint']) ~ ' from ' ~ truth).rows[0] -%}
  {{ return({'rows': row[0], 'hash': row[1]}) }}
{%- endmacro %}

{#- PostgreSQL: a row's 64-bit hash for `seed` (0 or 1) over `<prefix><column>` of each of
    `columns`, each cast to text in the "C" collation (each value hashed as its bytes, as the
    text form: hashtextextended under a nondeterministic collation would hash equal strings
    that differ): hash_record_extended of the record (per field the text's hash, NULL 0, folded
    as 31 * h + field, which is linear in the fields' hashes: review of session 5, two rows
    swapping a value kept the sum), then hashint8extended of that (a 64-bit mix, not linear),
    so a sum of row hashes is not a sum of per-column sums. Two rows differing in one field
    differ in the folded hash unless that field's hashes collide (31 is odd: the fold is
    invertible per field). No text is built per row. -#}
{% macro postgres_record_hash_sql(columns, prefix, seed) -%}
  {%- set cols = [] -%}
  {%- for c in columns -%}{%- do cols.append('cast(' ~ prefix ~ dbt_deid.ident(c) ~ ' as text) collate "C"') -%}{%- endfor -%}
  {{ return('hashint8extended(hash_record_extended(row(' ~ (cols | join(', ') if cols | length > 0 else "cast('' as text)") ~ '), ' ~ seed ~ '), ' ~ seed ~ ')') }}
{%- endmacro %}

{#- PostgreSQL: the checked release's fingerprint's select list (row count, fingerprint) over
    `columns` of the rows in scope, each read as `<prefix><column>`, only the rows where
    `present` holds (a SQL condition; none: every row): fingerprint_select_sql's form (the count,
    the two seeds' sums of the row hashes, exact in sum(bigint), md5 of them with the column
    names) with postgres_record_hash_sql's row hash. -#}
{% macro postgres_record_fingerprint_select_sql(columns, prefix, present, names) -%}
  {%- set when = dbt_deid._fingerprint_when(present) -%}
  {%- set count = dbt_deid._fingerprint_count(present) -%}
  {{ return(count ~ " as " ~ names[0] ~ ",
    md5(" ~ dbt_deid.literal(columns | join('|')) ~ " || '#' || cast(" ~ count ~ " as text) || '#'
        || cast(coalesce(sum(" ~ when[0] ~ dbt_deid.postgres_record_hash_sql(columns, prefix, 0) ~ when[1] ~ "), 0) as text) || ':'
        || cast(coalesce(sum(" ~ when[0] ~ dbt_deid.postgres_record_hash_sql(columns, prefix, 1) ~ when[1] ~ "), 0) as text)) as " ~ names[1]) }}
{%- endmacro %}
