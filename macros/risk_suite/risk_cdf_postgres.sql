{#- PostgreSQL form of risk_cdf_sql (issue 37, session 16): the same rows, with each
    combination's size histogram (`sizes_<i>`: per class size f, the records in classes of
    that size) read off the tuples' window sums instead of a second GROUP BY of the tuples.
    The tuples (`patterns`: every combination's columns grouped, each row standing for n
    records) already carry, per distinct column set, the size of the tuple's class
    (`sum(n) over (partition by ...)`, of which the default keeps only the least); summing n
    over the tuples whose class has size f gives sum over those classes of their size, the
    default's `sum(f)` grouped by f. PostgreSQL grouped the 1.8 million original tuples of a
    2.4-million-record release again on six text columns for each combination (8-10 s each,
    EXPLAIN ANALYZE on the kept tables); here each is a GROUP BY of one numeric column.
    Same types (numeric sums of the counts), same rows (tests/unit/test_risk_cdf_postgres.py
    on DuckDB). Session 18: each window partitioned by a bigint hash of its columns first
    (postgres_partition_key_sql), then the columns: the same partitions (the key is a function
    of the columns), but the window's sort compares one bigint for almost every pair of tuples
    instead of up to six text columns (tests/integration/test_combined_levels_postgres.py on
    PostgreSQL). -#}
{% macro postgres__risk_cdf_sql(relation, record_id, combinations, stage, count_column=none, same_values=none) -%}
  {%- set stage_combos = [] -%}
  {%- for b in combinations -%}{%- do stage_combos.append(dbt_deid.risk_stage_columns(b, stage, same_values)) -%}{%- endfor -%}
  {%- set keys = [] -%}{%- set sets = [] -%}
  {%- for b in stage_combos -%}
    {%- set key = b | sort | join(',') -%}
    {%- if key not in keys -%}{%- do keys.append(key) -%}{%- do sets.append(b) -%}{%- endif -%}
  {%- endfor -%}
  {%- set all_cols = [] -%}
  {%- for b in sets -%}{%- for c in b -%}{%- if dbt_deid.ident(c) not in all_cols -%}{%- do all_cols.append(dbt_deid.ident(c)) -%}{%- endif -%}{%- endfor -%}{%- endfor -%}
  {%- set sizes = [] -%}
  {%- for b in sets -%}
    {%- set cols = [] -%}{%- for c in b -%}{%- do cols.append(dbt_deid.ident(c)) -%}{%- endfor -%}
    {%- do sizes.append('sum(n) over (partition by ' ~ dbt_deid.postgres_partition_key_sql(cols) ~ ', ' ~ cols | join(', ') ~ ')') -%}
  {%- endfor %}
  with patterns as (
    select {{ all_cols | join(', ') }}, n,
    cast({% if sizes | length > 1 %}least({% for s in sizes %}deid_class_size_{{ loop.index }}__{% if not loop.last %}, {% endif %}{% endfor %}){% else %}deid_class_size_1__{% endif %} as {{ dbt.type_bigint() }}) as smallest_class_size,
    {% for s in sizes %}deid_class_size_{{ loop.index }}__{% if not loop.last %}, {% endif %}{% endfor %}
  from (
    select {{ all_cols | join(', ') }}, n,
    {% for s in sizes %}{{ s }} as deid_class_size_{{ loop.index }}__{% if not loop.last %}, {% endif %}{% endfor %}
    from (
      select {{ all_cols | join(', ') }}, {% if count_column %}sum({{ dbt_deid.ident(count_column) }}){% else %}count(*){% endif %} as n from {{ relation }} as deid_patterns_in group by {{ all_cols | join(', ') }}
    ) as deid_tuples__
  ) as patterns
  ),
  {%- for b in sets %}
  sizes_{{ loop.index }} as (
    select deid_class_size_{{ loop.index }}__ as f, sum(n) as records
    from patterns
    group by deid_class_size_{{ loop.index }}__
  ),
  {%- endfor %}
  {{ dbt_deid.risk_cdf_at_size_sql(stage, combinations, stage_combos, keys) }}
{%- endmacro %}

{#- PostgreSQL: a bigint that is a function of the values of `columns` (SQL expressions), NULLs
    included: `hash_record_extended` of their row, which hashes each field with its type's hash
    function, so values equal for the type hash equal (1.0 and 1.00, 0 and -0), as a hash join
    needs. Put first in a PARTITION BY or ORDER BY of those columns it leaves the partitions
    as they are (tuples equal on the columns have equal keys; the columns still separate tuples
    whose keys collide) and makes the sort compare one bigint for almost every pair of rows,
    where it compared up to all the columns' texts: the risk CDF's window sums over 1.8 million
    original tuples at 2.4 million records (issue 37, session 18). -#}
{% macro postgres_partition_key_sql(columns) -%}
  {{ return('hash_record_extended(row(' ~ columns | join(', ') ~ '), 0)') }}
{%- endmacro %}

{#- Redshift dispatches to postgres__ forms: the default form. -#}
{% macro redshift__risk_cdf_sql(relation, record_id, combinations, stage, count_column=none, same_values=none) -%}
  {{ return(dbt_deid.default__risk_cdf_sql(relation, record_id, combinations, stage, count_column, same_values)) }}
{%- endmacro %}
