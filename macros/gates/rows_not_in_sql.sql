{#- The multiset difference of two tables, counted: the number of rows of `left` that are not
    rows of `right`, multiplicity counted, as `select count(*) from (left EXCEPT ALL right)`
    gives it (a row held 3 times in `left` and once in `right` counts 2; NULLs compare equal, as
    in EXCEPT). 0 means every row of `left` is a row of `right`: `left` is a sub-multiset of it.

    EXCEPT ALL is not portable: PostgreSQL, DuckDB and Spark have it; BigQuery has only EXCEPT
    DISTINCT and Snowflake's EXCEPT/MINUS are distinct. default__ runs on every engine: one
    UNION ALL of both tables' `columns` with a side marker, one GROUP BY on the columns (GROUP BY
    puts NULLs in one group, as EXCEPT compares them equal) and the sum of each group's excess
    of left rows over right rows. postgres__ keeps EXCEPT ALL, measured about twice as fast
    there at a million rows; on DuckDB the default__ measured faster than EXCEPT ALL, so it
    has no form of its own (docs/combined-lines.md, "Portable line gates", bench/
    bench_rows_not_in.py).

    `left` and `right` are relations (or parenthesised queries with an alias-free form dbt's
    `from` accepts), `columns` the column names both hold (quoted here with dbt_deid.ident);
    the result is a query of one row and one column, `rows_not_in`. -#}
{% macro rows_not_in_sql(left, right, columns) -%}
  {{ return(dbt_deid.own(adapter.dispatch('rows_not_in_sql', 'dbt_deid'))(left, right, columns)) }}
{%- endmacro %}

{% macro default__rows_not_in_sql(left, right, columns) -%}
  {%- set sel = [] -%}{%- for c in columns -%}{%- do sel.append(dbt_deid.ident(c)) -%}{%- endfor -%}
  {%- set sel = sel | join(', ') -%}
  {{ return("select coalesce(sum(case when deid_left_n__ > deid_right_n__ then deid_left_n__ - deid_right_n__ else 0 end), 0) as rows_not_in"
      ~ " from (select sum(deid_left__) as deid_left_n__, sum(deid_right__) as deid_right_n__"
      ~ " from (select " ~ sel ~ ", 1 as deid_left__, 0 as deid_right__ from " ~ left
      ~ " union all select " ~ sel ~ ", 0 as deid_left__, 1 as deid_right__ from " ~ right ~ ") as deid_both__"
      ~ " group by " ~ sel ~ ") as deid_groups__") }}
{%- endmacro %}

{#- PostgreSQL has EXCEPT ALL (same count; NULLs compare equal), measured faster there. -#}
{% macro postgres__rows_not_in_sql(left, right, columns) -%}
  {%- set sel = [] -%}{%- for c in columns -%}{%- do sel.append(dbt_deid.ident(c)) -%}{%- endfor -%}
  {%- set sel = sel | join(', ') -%}
  {{ return("select count(*) as rows_not_in from (select " ~ sel ~ " from " ~ left ~ " except all select " ~ sel ~ " from " ~ right ~ ") as deid_except__") }}
{%- endmacro %}

{#- Redshift dispatches to postgres__ but has no EXCEPT ALL: the portable form. -#}
{% macro redshift__rows_not_in_sql(left, right, columns) -%}
  {{ return(dbt_deid.default__rows_not_in_sql(left, right, columns)) }}
{%- endmacro %}
