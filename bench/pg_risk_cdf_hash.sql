{#- A candidate PostgreSQL form of risk_cdf_sql, tried in session 17 and NOT in the package
    (not under macro-paths: dbt never loads this file). bench/bench_pg_risk_cdf.py renders it
    beside the package's postgres__risk_cdf_sql and times the two on a kept build: the same
    rows, 0-13% faster on the original stage at 2.4M records at load 8-11, and 2.4x (original)
    to 3.8x (generalized stage) the server process's peak memory (docs/performance.md,
    "PostgreSQL at 2.4M, session 17"). Its PostgreSQL test against default__ and the mutations
    that fail it are in the s17-pg2 branch's commits 50a39d6 and d4c2fae. -#}
{#- PostgreSQL form of risk_cdf_sql (issue 37, sessions 16-17): the same rows, with every class
    size from hash GROUP BYs instead of window sums (a sort of every tuple per column set). The
    tuples (`deid_tuples__`: every combination's columns grouped, each row standing for n
    records) carry, per distinct column set, one key: the set's values as one row value cast
    to text (`cast(row(...) as text)`), which is NULL-safe and exact for the package's QI
    columns (text: generalize_sql casts the `__original` columns, never NULL, and the released
    labels, NULL when suppressed): a NULL field is written as nothing, an empty or special
    string quoted and escaped, so two keys are equal exactly when the set's values are equal
    or NULL in the same fields (what GROUP BY and the default's windows group by), and one
    text column hashes in one hash join (PostgreSQL 15 hashes no anonymous row value, and
    equality on each column drops NULLs). `deid_classes_<i>__`: the classes of set i and their
    sizes (sum of n); the set's histogram `sizes_<i>` is the default's (f, sum(f)) over those
    classes; `patterns` joins each tuple to its classes for the records' smallest class. On the
    original stage of a 2.4-million-record release (1.8 million tuples, docs/performance.md
    "PostgreSQL at 2.4M, session 17") it removes a 10-14 s in-memory sort and the second
    window's incremental sort. Same types (numeric sums of the counts), same rows
    (tests/integration/test_combined_levels_postgres.py on PostgreSQL, with NULLs, empty strings
    and strings that need quoting; tests/unit/test_risk_cdf_postgres.py on DuckDB). -#}
{% macro postgres__risk_cdf_sql(relation, record_id, combinations, stage, count_column=none, same_values=none) -%}
  {%- set stage_combos = [] -%}
  {%- for b in combinations -%}{%- do stage_combos.append(dbt_deid.risk_stage_columns(b, stage, same_values)) -%}{%- endfor -%}
  {%- set keys = [] -%}{%- set sets = [] -%}
  {%- for b in stage_combos -%}
    {%- set key = b | sort | join(',') -%}
    {%- if key not in keys -%}{%- do keys.append(key) -%}{%- do sets.append(b) -%}{%- endif -%}
  {%- endfor -%}
  {%- set all_cols = [] -%}
  {%- for b in sets -%}{%- for c in b -%}{%- if dbt_deid.ident(c) not in all_cols -%}{%- do all_cols.append(dbt_deid.ident(c)) -%}{%- endif -%}{%- endfor -%}{%- endfor %}
  with deid_tuples__ as materialized (
    select
    {%- for b in sets %}
    {%- set cols = [] -%}{%- for c in b -%}{%- do cols.append(dbt_deid.ident(c)) -%}{%- endfor %}
    cast(row({{ cols | join(', ') }}) as text) as deid_key_{{ loop.index }}__,
    {%- endfor %}
    {% if count_column %}sum({{ dbt_deid.ident(count_column) }}){% else %}count(*){% endif %} as n
    from {{ relation }} as deid_patterns_in
    group by {{ all_cols | join(', ') }}
  ),
  {%- for b in sets %}
  deid_classes_{{ loop.index }}__ as materialized (
    select deid_key_{{ loop.index }}__, sum(n) as f
    from deid_tuples__
    group by deid_key_{{ loop.index }}__
  ),
  sizes_{{ loop.index }} as (
    select f, sum(f) as records
    from deid_classes_{{ loop.index }}__
    group by f
  ),
  {%- endfor %}
  patterns as (
    select t.n,
    cast({% if sets | length > 1 %}least({% for b in sets %}c{{ loop.index }}.f{% if not loop.last %}, {% endif %}{% endfor %}){% else %}c1.f{% endif %} as {{ dbt.type_bigint() }}) as smallest_class_size
    from deid_tuples__ as t
    {%- for b in sets %}
    join deid_classes_{{ loop.index }}__ as c{{ loop.index }} on c{{ loop.index }}.deid_key_{{ loop.index }}__ = t.deid_key_{{ loop.index }}__
    {%- endfor %}
  ),
  {{ dbt_deid.risk_cdf_at_size_sql(stage, combinations, stage_combos, keys) }}
{%- endmacro %}
