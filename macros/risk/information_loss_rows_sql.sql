{#- The information loss's output rows (information_loss_grouped_sql): `rows` is a list of rows,
    each a list of [expression, column name] in the same column order, every expression reading
    the relations of `source` (a FROM clause: totals cross-joined with each QI's entropy CTE and
    the heights, each one row). The default form is one SELECT per row over `source`, UNION ALL. -#}
{% macro information_loss_rows_sql(rows, source) -%}
  {{ return(dbt_deid.own(adapter.dispatch('information_loss_rows_sql', 'dbt_deid'))(rows, source)) }}
{%- endmacro %}

{% macro default__information_loss_rows_sql(rows, source) -%}
  {%- for row in rows %}
  select {% for item in row %}{{ item[0] }} as {{ item[1] }}{% if not loop.last %},
    {% endif %}{% endfor %}
  from {{ source }}
  {%- if not loop.last %}
  union all
  {%- endif %}
  {%- endfor %}
{%- endmacro %}

{#- Spark (issue 37): `source` is read once, as one row, spread over the rows by a join with
    their numbers (`values (0), ..., (N)`), each column a CASE of the rows' expressions, term
    for term the default form's. Spark plans each reference to a CTE as a copy of that CTE's
    plan (exchange reuse only at run time): the default form's N + 1 SELECTs each cross-joining
    the N entropy CTEs gave deid_diagnostics' information loss 110 references, 242 file scans
    and 1,265 exchanges at 10 QIs (docs/performance.md, "Spark at 2.4M, session 17"); this form
    has one reference to each. -#}
{% macro spark__information_loss_rows_sql(rows, source) -%}
  select {% for item in rows[0] %}{%- set column = loop.index0 %}case deid_row__.i{% for row in rows %} when {{ loop.index0 }} then {{ row[column][0] }}{% endfor %} end as {{ item[1] }}{% if not loop.last %},
    {% endif %}{% endfor %}
  from {{ source }} cross join (values {% for row in rows %}({{ loop.index0 }}){% if not loop.last %}, {% endif %}{% endfor %}) as deid_row__(i)
{%- endmacro %}
