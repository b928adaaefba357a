{#- Level 1: width 10, inclusive integer ranges, >= 90 top-coded, < 0 bottom-coded. Level 2:
    width 5 labelled by the lower bound, floored (-1 is in [-5, 0)). Level 3: breaks 0, 18, 65
    labelled by index, below the first break '<0'. Prefixes: 3 characters, then '*' (NULL stays
    NULL). Dates: the first day of the month, quarter, year. -#}
{{ config(enabled=var('deid_macro_tests', false), tags=['macro_tests']) }}
select * from (values
  ('interval', 1, '-1', '<0', '-5', '<0'),
  ('interval', 2, '0', '0-9', '0', '0'),
  ('interval', 3, '9', '0-9', '5', '0'),
  ('interval', 4, '10', '10-19', '10', '0'),
  ('interval', 5, '89', '80-89', '85', '2'),
  ('interval', 6, '90', '90+', '90', '2'),
  ('interval', 7, '120', '90+', '120', '2'),
  ('interval', 8, null, null, null, null),
  ('prefix', 1, 'A012', 'A01', '*', null),
  ('prefix', 2, 'B9', 'B9', '*', null),
  ('prefix', 3, null, null, null, null),
  ('date', 1, '2020-02-29', '2020-02-01', '2020-01-01', '2020-01-01'),
  ('date', 2, '2020-12-31', '2020-12-01', '2020-10-01', '2020-01-01'),
  ('date', 3, null, null, null, null)
) as t(rule, id, level_0, level_1, level_2, level_3)
