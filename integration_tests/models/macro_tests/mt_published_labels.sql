{#- Published labels (macros/publish/published_value.sql): the checked text cells of rule-based
    QIs (rule_level_sql) as deid_published shows them: intervals half-open, every label style,
    negative and decimal bounds, top/bottom-coded bins and the missing label as they are; dates
    as the period (month, quarter, year, week). -#}
{{ config(enabled=var('deid_macro_tests', false), tags=['macro_tests']) }}
{%- set cfg = {'missing_label': '<missing>'} -%}
{%- set interval = {'type': 'interval', 'levels': [{'width': 10, 'top_code': 90, 'bottom_code': 0}, {'width': 5, 'label': 'lower'}, {'breaks': [0, 18, 65], 'label': 'index'}, {'width': 2.5}]} -%}
{%- set date = {'type': 'date', 'levels': [{'trunc': 'month'}, {'trunc': 'quarter'}, {'trunc': 'year'}, {'trunc': 'week'}]} -%}
{%- set col = {} -%}
{%- for name, rule, expr in [('interval', interval, 'x'), ('date', date, 'day')] -%}
  {%- for level in range(1, 5) -%}
    {%- set spec = rule['levels'][level - 1] -%}
    {%- set kind = {'kind': 'date', 'unit': spec.trunc} if rule.type == 'date' else {'kind': 'interval', 'spec': spec} -%}
    {%- do col.update({name ~ level: dbt_deid.published_value_sql(cfg, kind, dbt_deid.rule_level_sql(rule, level, expr))}) -%}
  {%- endfor -%}
{%- endfor -%}
with v as (
  select * from (values (1, -1), (2, 0), (3, 9), (4, 10), (5, 89), (6, 90), (7, 120), (8, null))
    as t(id, x)
), d as (
  select * from (values (1, date '2020-02-29'), (2, date '2020-12-31'), (3, null)) as t(id, day)
)
select 'interval' as rule, id, {{ col.interval1 }} as level_1, {{ col.interval2 }} as level_2,
  {{ col.interval3 }} as level_3, {{ col.interval4 }} as level_4
from v
union all
select 'date', id, {{ col.date1 }}, {{ col.date2 }}, {{ col.date3 }}, {{ col.date4 }}
from d
union all
{#- a missing value is its own category: the missing label, never relabelled #}
select 'missing', 1, {{ dbt_deid.published_value_sql(cfg, {'kind': 'interval', 'spec': interval['levels'][0]}, "'<missing>'") }},
  {{ dbt_deid.published_value_sql(cfg, {'kind': 'interval', 'spec': interval['levels'][2]}, "'<missing>'") }},
  {{ dbt_deid.published_value_sql(cfg, {'kind': 'date', 'unit': 'quarter'}, "'<missing>'") }},
  {{ dbt_deid.published_value_sql(cfg, none, "'<missing>'") }}
