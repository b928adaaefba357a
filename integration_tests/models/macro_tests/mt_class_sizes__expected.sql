{#- f_j of (a, b): 2, 1, 1, 1, 1 from the records and from the pattern table alike; of (a):
    '1' x3, '2' x2, NULL x1. -#}
{{ config(enabled=var('deid_macro_tests', false), tags=['macro_tests']) }}
select input, cast(f as bigint) as f from (values
  ('records', 2), ('records', 1), ('records', 1), ('records', 1), ('records', 1),
  ('patterns', 2), ('patterns', 1), ('patterns', 1), ('patterns', 1), ('patterns', 1),
  ('a only', 3), ('a only', 2), ('a only', 1)
) as t(input, f)
