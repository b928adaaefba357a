{#- Level 1 (width 10, top 90, bottom 0, range labels '0-9'): [0, 10) ... [80, 90), '90+' and
    '<0' as they are. Level 2 (width 5, lower labels '-5'): [-5, 0), floored. Level 3 (breaks 0,
    18, 65, index labels '0', '1', '2'): [0, 18), the last break 65+, '<0'. Level 4 (width 2.5,
    range labels '-2.5-0', '87.5-90'): [-2.5, 0), [87.5, 90). Dates: 2020-02-29 is a Saturday,
    its week starts Monday 2020-02-24; 2020-12-31 (Thursday) in the week of 2020-12-28. -#}
{{ config(enabled=var('deid_macro_tests', false), tags=['macro_tests']) }}
select * from (values
  ('interval', 1, '<0', '[-5, 0)', '<0', '[-2.5, 0)'),
  ('interval', 2, '[0, 10)', '[0, 5)', '[0, 18)', '[0, 2.5)'),
  ('interval', 3, '[0, 10)', '[5, 10)', '[0, 18)', '[7.5, 10)'),
  ('interval', 4, '[10, 20)', '[10, 15)', '[0, 18)', '[10, 12.5)'),
  ('interval', 5, '[80, 90)', '[85, 90)', '65+', '[87.5, 90)'),
  ('interval', 6, '90+', '[90, 95)', '65+', '[90, 92.5)'),
  ('interval', 7, '90+', '[120, 125)', '65+', '[120, 122.5)'),
  ('interval', 8, null, null, null, null),
  ('date', 1, '2020-02', '2020-Q1', '2020', 'week of 2020-02-24'),
  ('date', 2, '2020-12', '2020-Q4', '2020', 'week of 2020-12-28'),
  ('date', 3, null, null, null, null),
  ('missing', 1, '<missing>', '<missing>', '<missing>', '<missing>')
) as t(rule, id, level_1, level_2, level_3, level_4)
