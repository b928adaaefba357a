{#- Hierarchy rules (macros/hierarchy/rule_level_sql.sql and the files it calls) on a few edge values: interval bins with top
    and bottom coding and each label style, prefixes, date truncation. -#}
{{ config(enabled=var('deid_macro_tests', false), tags=['macro_tests']) }}
{%- set interval = {'type': 'interval', 'levels': [{'width': 10, 'top_code': 90, 'bottom_code': 0}, {'width': 5, 'label': 'lower'}, {'breaks': [0, 18, 65], 'label': 'index'}]} -%}
{%- set prefix = {'type': 'prefix', 'levels': [{'length': 3}, {'length': 0}]} -%}
{%- set date = {'type': 'date', 'levels': [{'trunc': 'month'}, {'trunc': 'quarter'}, {'trunc': 'year'}]} -%}
with v as (
  select * from (values (1, -1), (2, 0), (3, 9), (4, 10), (5, 89), (6, 90), (7, 120), (8, null))
    as t(id, x)
), s as (
  select * from (values (1, 'A012'), (2, 'B9'), (3, null)) as t(id, code)
), d as (
  select * from (values (1, date '2020-02-29'), (2, date '2020-12-31'), (3, null)) as t(id, day)
)
select 'interval' as rule, id,
  {{ dbt_deid.rule_level_sql(interval, 0, 'x') }} as level_0,
  {{ dbt_deid.rule_level_sql(interval, 1, 'x') }} as level_1,
  {{ dbt_deid.rule_level_sql(interval, 2, 'x') }} as level_2,
  {{ dbt_deid.rule_level_sql(interval, 3, 'x') }} as level_3
from v
union all
select 'prefix', id, {{ dbt_deid.rule_level_sql(prefix, 0, 'code') }}, {{ dbt_deid.rule_level_sql(prefix, 1, 'code') }},
  {{ dbt_deid.rule_level_sql(prefix, 2, 'code') }}, null
from s
union all
select 'date', id, {{ dbt_deid.rule_level_sql(date, 0, 'day') }}, {{ dbt_deid.rule_level_sql(date, 1, 'day') }},
  {{ dbt_deid.rule_level_sql(date, 2, 'day') }}, {{ dbt_deid.rule_level_sql(date, 3, 'day') }}
from d
