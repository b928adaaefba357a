{#- Fixture: a deid_suppressed-like release of 6 records on two QIs, `a` and `b` (released
    value, NULL = suppressed) with their true values at the released level `<qi>__generalized`.
    True tuples (a, b): (1, x) x2, (1, y), (2, y), (2, x) x2. -#}
{{ config(materialized='table', enabled=var('deid_macro_tests', false), tags=['macro_tests']) }}
select * from (values
  (1, '1', '1', 'x', 'x'),
  (2, '1', '1', 'x', 'x'),
  (3, '1', '1', 'y', 'y'),
  (4, null, '2', 'y', 'y'),
  (5, '2', '2', null, 'x'),
  (6, '2', '2', 'x', 'x')
) as t(rid, a, a__generalized, b, b__generalized)
