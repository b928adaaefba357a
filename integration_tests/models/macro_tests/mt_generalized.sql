{#- Fixture: deid_generalized-like records (record id, `<qi>` at the released level and
    `<qi>__original`). -#}
{{ config(materialized='table', enabled=var('deid_macro_tests', false), tags=['macro_tests']) }}
select * from (values
  (30, '1', '1a', 'x', 'x1'),
  (10, '1', '1b', 'x', 'x2'),
  (20, '1', '1c', 'x', 'x3'),
  (40, '2', '2a', 'y', 'y1'),
  (50, '2', '2b', 'x', 'x1')
) as t(rid, a, a__original, b, b__original)
