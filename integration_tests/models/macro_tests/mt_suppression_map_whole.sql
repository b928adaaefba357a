{#- Fixture: a suppression map whose rows each cover all the records of their pattern
    (rank_from = 1, rank_to >= n): all 3 records of (1, x) lose `a`; (2, y)'s single record
    loses both. -#}
{{ config(materialized='table', enabled=var('deid_macro_tests', false), tags=['macro_tests']) }}
select * from (values
  ('1', 'x', 3, 1, 3, true, false),
  ('2', 'y', 1, 1, 1, true, true)
) as t(a, b, n, rank_from, rank_to, a__suppressed, b__suppressed)
