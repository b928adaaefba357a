{#- The table fingerprint: a row count and an order-independent hash of a relation's rows,
    computed on the warehouse. It binds the gate table to the input it was computed on and the
    published table to the checked release (macros/publish/materialization_deid_publish.sql). -#}

{#- Row count and an order-independent hash of `columns` (default: all) of `relation`, computed
    on the warehouse: {'rows': n, 'hash': md5 hex}. -#}
{% macro table_fingerprint(relation, columns=none) -%}
  {%- set cols = columns if columns is not none else (adapter.get_columns_in_relation(relation) | map(attribute='name') | list) -%}
  {%- set row = run_query(dbt_deid.table_fingerprint_sql(relation, cols)).rows[0] -%}
  {{ return({'rows': row[0], 'hash': row[1]}) }}
{%- endmacro %}

{% macro table_fingerprint_sql(relation, columns) -%}
  {{ return(dbt_deid.own(adapter.dispatch('table_fingerprint_sql', 'dbt_deid'))(relation, columns)) }}
{%- endmacro %}

{#- Each row is encoded without ambiguity (per column: N for NULL, else V<length>:<text>), hashed
    with md5; the row hashes are sorted and concatenated, and the result hashed with the column
    names: equal for equal multisets of rows whatever their order. -#}
{% macro default__table_fingerprint_sql(relation, columns) -%}
  select count(*) as row_count,
    {{ dbt.hash(dbt.concat([dbt_deid.literal(columns | join('|')), "'#'", "coalesce(" ~ dbt.listagg('row_hash', "''", 'order by row_hash') ~ ", '')"])) }} as fingerprint
  from ({{ dbt_deid._row_hashes_sql(relation, columns) }}) as rows
{%- endmacro %}

{#- One md5 per row of `relation`: per column N for NULL, else V<length>:<text>, joined by '|'. -#}
{% macro _row_hashes_sql(relation, columns) -%}
  {%- set s = dbt.type_string() -%}
  {%- set parts = [] -%}
  {%- for c in columns -%}
    {%- set v = 'cast(' ~ dbt_deid.ident(c) ~ ' as ' ~ s ~ ')' -%}
    {%- do parts.append("case when " ~ dbt_deid.ident(c) ~ " is null then 'N' else " ~ dbt.concat(["'V'", 'cast(' ~ dbt.length(v) ~ ' as ' ~ s ~ ')', "':'", v]) ~ " end") -%}
  {%- endfor -%}
  select {{ dbt.hash(dbt.concat(dbt_deid._interleave(parts, "'|'"))) }} as row_hash
  from {{ relation }}
{%- endmacro %}

{#- DuckDB: an additive multiset hash. Each row is hashed by DuckDB's hash() over its columns
    (in order, NULL included) and the row hashes are added up as exact 128-bit integers, twice
    (the second with a constant mixed in); the two sums, the row count and the column names are
    hashed with md5. Still equal for equal multisets of rows whatever their order, and linear in
    the rows with no text built per row: building the default's row text (every column cast to
    text) and sorting the row md5s cost 69 s at 2.4M records and 226 s per fingerprint at 24M
    on the loaded 2-core machine, three times per release (the input fingerprint model, and the
    input and published table in the publish materialization); hash() takes 0.7 s at 2.4M
    (issue 18, bench/bench_scale.py). hash() is DuckDB's: a fingerprint recorded by one DuckDB
    version may differ from the same table's under another, and the values differ from the
    other engines' (the history is engine-specific anyway: it names the engine's relations). -#}
{% macro duckdb__table_fingerprint_sql(relation, columns) -%}
  select {{ dbt_deid.fingerprint_select_sql(columns) }}
  from {{ relation }}
{%- endmacro %}

{% macro duckdb__fingerprint_select_sql(columns, prefix, present, names) -%}
  {%- set cols = [] -%}{%- for c in columns -%}{%- do cols.append(prefix ~ dbt_deid.ident(c)) -%}{%- endfor -%}
  {%- set args = cols | join(', ') if cols | length > 0 else "''" -%}
  {%- set when = dbt_deid._fingerprint_when(present) -%}
  {{ return(dbt_deid._fingerprint_count(present) ~ " as " ~ names[0] ~ ",
    md5(" ~ dbt_deid.literal(columns | join('|')) ~ " || '#' || cast(" ~ dbt_deid._fingerprint_count(present) ~ " as varchar) || '#'
        || cast(coalesce(sum(" ~ when[0] ~ "hash(" ~ args ~ ")" ~ when[1] ~ "), 0) as varchar) || ':'
        || cast(coalesce(sum(" ~ when[0] ~ "hash(" ~ args ~ ", 'dbt_deid')" ~ when[1] ~ "), 0) as varchar)) as " ~ names[1]) }}
{%- endmacro %}

{#- (Spark: dbt-spark's listagg also ignores the default's ORDER BY, so the default form hashed
    the rows in the order executors answered: on a cluster the gate table's input fingerprint
    and the publish step's differed and every release was refused. The sums below have no
    order.) -#}
{#- PostgreSQL and Spark: the same additive multiset hash as DuckDB's (issue 37), with each
    engine's 64-bit row hash: the default's sorted row md5s aggregated into one string cost 6x
    DuckDB's time on PostgreSQL at 240,000 records (bench/bench_engines.py) and ran in one task
    on Spark, three times per release. Every column is cast to text first (each value hashed as
    its text, as the default does; a NULL stays NULL and hashes by its position: PostgreSQL
    hashes the record's text (`hashtextextended` of the row cast to text, which quotes each
    field; `hash_record_extended` is linear in its fields' hashes, so values swapped between two
    rows left the sum unchanged about half the time: review of session 5), Spark the column's NULL flag next to it), and the row hashes are added
    as exact decimals twice (the second with a constant mixed in), hashed with md5 with the row
    count and the column names. Equal for equal multisets of rows whatever their order; the
    value differs from the default form's (a history recorded before keeps its fingerprints;
    the engines' fingerprints were never comparable). PostgreSQL's plain fingerprint sums the
    bigint hashes with sum(bigint), which is already exact (numeric result, accumulated in
    128-bit integers): the same value as summing each hash cast to numeric, without a numeric
    addition per row (issue 37; the weighted form keeps numeric: a hash times a count can
    leave bigint). -#}
{#- (PostgreSQL has no common-subexpression elimination: the row's text, built once per seed,
    was most of the cost (28 columns of deid_suppressed at 2.4M records: 14.8 s for the texts,
    24.0 s for the two hashes, one process; issue 37). The table's fingerprint builds it once,
    in a LATERAL subquery that OFFSET 0 keeps from being pulled up into the two sums; the
    gate's single scan does the same (postgres__gate_input_unchanged_sql). Same text, same
    hashes, same value.) -#}
{% macro postgres__table_fingerprint_sql(relation, columns) -%}
  select {{ dbt_deid.postgres_fingerprint_sums_sql(columns, 'deid_fp__.deid_row_text__', none, ['row_count', 'fingerprint']) }}
  from {{ relation }}
  cross join lateral (select {{ dbt_deid.postgres_fingerprint_row_text(columns, '') }} as deid_row_text__ offset 0) as deid_fp__
{%- endmacro %}

{% macro postgres__fingerprint_select_sql(columns, prefix, present, names) -%}
  {{ return(dbt_deid.postgres_fingerprint_sums_sql(columns, dbt_deid.postgres_fingerprint_row_text(columns, prefix), present, names)) }}
{%- endmacro %}

{#- PostgreSQL: the text a row is hashed as, `<prefix><column>` of each of `columns` cast to
    text in a record, the record cast to text (record_out quotes each field). -#}
{% macro postgres_fingerprint_row_text(columns, prefix) -%}
  {%- set cols = [] -%}{%- for c in columns -%}{%- do cols.append('cast(' ~ prefix ~ dbt_deid.ident(c) ~ ' as text)') -%}{%- endfor -%}
  {{ return('cast(row(' ~ (cols | join(', ') if cols | length > 0 else "cast('' as text)") ~ ') as text)') }}
{%- endmacro %}

{#- PostgreSQL: the fingerprint's select list from `row_text` (an SQL expression: the row's
    text, postgres_fingerprint_row_text's or a column holding it), as fingerprint_select_sql. -#}
{% macro postgres_fingerprint_sums_sql(columns, row_text, present, names) -%}
  {%- set when = dbt_deid._fingerprint_when(present) -%}
  {{ return(dbt_deid._fingerprint_count(present) ~ " as " ~ names[0] ~ ",
    md5(" ~ dbt_deid.literal(columns | join('|')) ~ " || '#' || cast(" ~ dbt_deid._fingerprint_count(present) ~ " as text) || '#'
        || cast(coalesce(sum(" ~ when[0] ~ "hashtextextended(" ~ row_text ~ ", 0)" ~ when[1] ~ "), 0) as text) || ':'
        || cast(coalesce(sum(" ~ when[0] ~ "hashtextextended(" ~ row_text ~ ", 1)" ~ when[1] ~ "), 0) as text)) as " ~ names[1]) }}
{%- endmacro %}

{% macro spark__table_fingerprint_sql(relation, columns) -%}
  select {{ dbt_deid.fingerprint_select_sql(columns) }}
  from {{ relation }}
{%- endmacro %}

{#- (Spark, session 19: each sum is the exact sum of the signed 64-bit row hashes, as a
    decimal(38, 0) sum of each hash gives, but added in 64-bit integers: the high 32 bits
    (signed) and the low 32 bits of each hash summed apart, sum(h) = 2^32 * sum(high) +
    sum(low) computed once in decimal(38, 0) from the two sums: the same decimal, so the same
    text and the same fingerprint as before, without a BigDecimal addition per row (issue 37:
    the gate table's scan sums four hashes of 2,375,331 records). Exact for fewer than 2^31
    rows (|high| <= 2^31, low < 2^32); past that, Spark's overflow check refuses (ANSI mode) or
    the sums wrap, still equal for equal multisets, as the weighted form's.) -#}
{% macro spark__fingerprint_select_sql(columns, prefix, present, names) -%}
  {%- set cols = [] -%}
  {%- for c in columns -%}{%- do cols.append(prefix ~ dbt_deid.ident(c) ~ ' is null, cast(' ~ prefix ~ dbt_deid.ident(c) ~ ' as string)') -%}{%- endfor -%}
  {%- set args = cols | join(', ') if cols | length > 0 else "''" -%}
  {%- set when = dbt_deid._fingerprint_when(present) -%}
  {%- set sums = [] -%}
  {%- for h in ['xxhash64(' ~ args ~ ')', "xxhash64('dbt_deid', " ~ args ~ ")"] -%}
    {%- do sums.append("cast(cast(coalesce(sum(" ~ when[0] ~ "shiftright(" ~ h ~ ", 32)" ~ when[1] ~ "), 0) as decimal(38, 0)) * 4294967296 + cast(coalesce(sum(" ~ when[0] ~ "(" ~ h ~ " & 4294967295)" ~ when[1] ~ "), 0) as decimal(38, 0)) as decimal(38, 0))") -%}
  {%- endfor -%}
  {{ return(dbt_deid._fingerprint_count(present) ~ " as " ~ names[0] ~ ",
    md5(concat(" ~ dbt_deid.literal(columns | join('|')) ~ ", '#', cast(" ~ dbt_deid._fingerprint_count(present) ~ " as string), '#',
        cast(" ~ sums[0] ~ " as string), ':',
        cast(" ~ sums[1] ~ " as string))) as " ~ names[1]) }}
{%- endmacro %}

{#- The fingerprint's select list (row_count, fingerprint) over `columns` of the rows in scope,
    each column read as `<prefix><column>`; with `present` (a SQL condition), only the rows
    where it holds are counted and hashed, so the fingerprint of a relation can be taken in a
    query that reads it for something else (a join), with the value table_fingerprint_sql gives
    on that relation alone; `names`, the two output columns' names (row_count, fingerprint), so
    one query can take two relations' fingerprints. The additive engines (DuckDB, PostgreSQL, Spark) have one; none for
    the default (its sorted listagg needs its own query): callers then run table_fingerprint. -#}
{% macro fingerprint_select_sql(columns, prefix='', present=none, names=['row_count', 'fingerprint']) -%}
  {{ return(dbt_deid.own(adapter.dispatch('fingerprint_select_sql', 'dbt_deid'))(columns, prefix, present, names)) }}
{%- endmacro %}

{% macro default__fingerprint_select_sql(columns, prefix, present, names) -%}
  {{ return(none) }}
{%- endmacro %}

{#- The row count of the fingerprint: count(*), or the rows where `present` holds. -#}
{% macro _fingerprint_count(present) -%}
  {{ return('count(*)' if present is none else 'count(case when ' ~ present ~ ' then 1 end)') }}
{%- endmacro %}

{#- The [before, after] wrapping of a row hash so that only the rows where `present` holds add
    to the sums (nothing without `present`). -#}
{% macro _fingerprint_when(present) -%}
  {{ return(['', ''] if present is none else ['case when ' ~ present ~ ' then ', ' end']) }}
{%- endmacro %}

{% macro _interleave(items, sep) -%}
  {%- set out = [] -%}
  {%- for i in items -%}{%- do out.append(i) -%}{%- if not loop.last -%}{%- do out.append(sep) -%}{%- endif -%}{%- endfor -%}
  {%- if out | length == 0 -%}{%- do out.append("''") -%}{%- endif -%}
  {%- if out | length == 1 -%}{%- do out.append("''") -%}{%- endif -%}
  {{ return(out) }}
{%- endmacro %}

{#- A weighted fingerprint's select list (rows, fingerprint) over `columns` of the rows in scope,
    each row counting `weight` times (a SQL expression: a pattern table's count `n`, or 1/0 for
    the rows of one side of a join): the same value for a table of records and for its pattern
    table grouped by those columns with the record count as weight, so the gate table proves
    that deid_suppressed_patterns is the checked release grouped in the scan of the checked
    release it makes anyway (issue 33: the record-level released table read at most 4 times
    per build), not in a GROUP BY of the records of its own. Each value is hashed as its text
    (the two tables' types need not match), the row hashes multiplied by the weight and added
    as exact integers, twice (two seeds), as fingerprint_select_sql. DuckDB, PostgreSQL and
    Spark; none elsewhere (callers then compare the two tables with gate_published_matches_sql). -#}
{% macro weighted_fingerprint_select_sql(columns, prefix, weight, names) -%}
  {{ return(dbt_deid.own(adapter.dispatch('weighted_fingerprint_select_sql', 'dbt_deid'))(columns, prefix, weight, names)) }}
{%- endmacro %}

{% macro default__weighted_fingerprint_select_sql(columns, prefix, weight, names) -%}
  {{ return(none) }}
{%- endmacro %}

{% macro duckdb__weighted_fingerprint_select_sql(columns, prefix, weight, names) -%}
  {%- set cols = [] -%}{%- for c in columns -%}{%- do cols.append('cast(' ~ prefix ~ dbt_deid.ident(c) ~ ' as varchar)') -%}{%- endfor -%}
  {%- set args = cols | join(', ') if cols | length > 0 else "''" -%}
  {{ return("coalesce(sum(" ~ weight ~ "), 0) as " ~ names[0] ~ ",
    md5(" ~ dbt_deid.literal(columns | join('|')) ~ " || '#' || cast(coalesce(sum(" ~ weight ~ "), 0) as varchar) || '#'
        || cast(coalesce(sum(cast(hash(" ~ args ~ ") as hugeint) * (" ~ weight ~ ")), 0) as varchar) || ':'
        || cast(coalesce(sum(cast(hash(" ~ args ~ ", 'dbt_deid') as hugeint) * (" ~ weight ~ ")), 0) as varchar)) as " ~ names[1]) }}
{%- endmacro %}

{#- Spark (issue 37, session 18): the same weighted multiset hash over Spark's row hash
    (spark__fingerprint_select_sql's: each column's NULL flag and its text, xxhash64, two
    seeds), summed exactly in 64-bit integers: each row hash h is split into its high 32 bits
    (signed) and its low 32 bits, each multiplied by the weight and summed, so sum(h * weight)
    is 2^32 * (high sum) + (low sum), both sums exact for fewer than 2^31 records (|part| <
    2^32, the weights add up to the record count); past that, Spark's overflow check refuses
    (ANSI mode) or the sums wrap, still equal for equal multisets. Not decimals: the pattern
    table's side in decimal(38, 0) took 105 s at 2.4 million records (1,208,290 rows, 148
    task seconds of BigDecimal arithmetic, load 25). Without this form the gate table proved
    deid_suppressed_patterns with gate_published_matches_sql, a UNION and GROUP BY of the
    checked release of its own (308 s of the gate table's 649 s in a loaded 2.4M build). -#}
{% macro spark__weighted_fingerprint_select_sql(columns, prefix, weight, names) -%}
  {%- set cols = [] -%}
  {%- for c in columns -%}{%- do cols.append(prefix ~ dbt_deid.ident(c) ~ ' is null, cast(' ~ prefix ~ dbt_deid.ident(c) ~ ' as string)') -%}{%- endfor -%}
  {%- set args = cols | join(', ') if cols | length > 0 else "''" -%}
  {%- set w = 'cast(' ~ weight ~ ' as bigint)' -%}
  {%- set sums = [] -%}
  {%- for h in ['xxhash64(' ~ args ~ ')', "xxhash64('dbt_deid', " ~ args ~ ")"] -%}
    {%- do sums.append("cast(coalesce(sum(shiftright(" ~ h ~ ", 32) * " ~ w ~ "), 0) as string), '.', cast(coalesce(sum((" ~ h ~ " & 4294967295) * " ~ w ~ "), 0) as string)") -%}
  {%- endfor -%}
  {{ return("coalesce(sum(" ~ w ~ "), 0) as " ~ names[0] ~ ",
    md5(concat(" ~ dbt_deid.literal(columns | join('|')) ~ ", '#', cast(coalesce(sum(" ~ w ~ "), 0) as string), '#',
        " ~ sums[0] ~ ", ':',
        " ~ sums[1] ~ ")) as " ~ names[1]) }}
{%- endmacro %}

{#- (PostgreSQL, session 20: each row hashed by postgres_record_hash_sql, no text per row. The
    weighted fingerprint is compared only within one build: the gate table's scan of the checked
    release against deid_suppressed_patterns', checked_patterns_problems; checked_fingerprint.sql.) -#}
{% macro postgres__weighted_fingerprint_select_sql(columns, prefix, weight, names) -%}
  {{ return("cast(coalesce(sum(" ~ weight ~ "), 0) as numeric) as " ~ names[0] ~ ",
    md5(" ~ dbt_deid.literal(columns | join('|')) ~ " || '#' || cast(cast(coalesce(sum(" ~ weight ~ "), 0) as numeric) as text) || '#'
        || cast(coalesce(sum(cast(" ~ dbt_deid.postgres_record_hash_sql(columns, prefix, 0) ~ " as numeric) * (" ~ weight ~ ")), 0) as text) || ':'
        || cast(coalesce(sum(cast(" ~ dbt_deid.postgres_record_hash_sql(columns, prefix, 1) ~ " as numeric) * (" ~ weight ~ ")), 0) as text)) as " ~ names[1]) }}
{%- endmacro %}
