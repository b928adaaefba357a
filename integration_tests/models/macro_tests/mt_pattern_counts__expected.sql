{#- Distinct (a, b) with their counts; a suppressed (NULL) cell is a value of its own. -#}
{{ config(enabled=var('deid_macro_tests', false), tags=['macro_tests']) }}
select a, b, cast(n as bigint) as n from (values
  ('1', 'x', 2), ('1', 'y', 1), (null, 'y', 1), ('2', null, 1), ('2', 'x', 1)
) as t(a, b, n)
