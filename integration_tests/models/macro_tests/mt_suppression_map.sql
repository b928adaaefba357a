{#- Fixture: a suppression map (deid_suppression_map's layout) for the generalized records of
    mt_generalized: of pattern (1, x)'s 3 records, ranks 2-3 lose `a`; pattern (2, y)'s single
    record loses both. -#}
{{ config(materialized='table', enabled=var('deid_macro_tests', false), tags=['macro_tests']) }}
select * from (values
  ('1', 'x', 2, 2, 3, true, false),
  ('2', 'y', 1, 1, 1, true, true)
) as t(a, b, n, rank_from, rank_to, a__suppressed, b__suppressed)
