{#- Every record of (1, x) (rid 10, 20, 30) loses `a`; rid 40 is (2, y) and loses both; 50 is in
    no map row and keeps its values. -#}
{{ config(enabled=var('deid_macro_tests', false), tags=['macro_tests']) }}
select * from (values
  (10, null, '1', '1b', 'x', 'x', 'x2'),
  (20, null, '1', '1c', 'x', 'x', 'x3'),
  (30, null, '1', '1a', 'x', 'x', 'x1'),
  (40, null, '2', '2a', null, 'y', 'y1'),
  (50, '2', '2', '2b', 'x', 'x', 'x1')
) as t(rid, a, a__generalized, a__original, b, b__generalized, b__original)
