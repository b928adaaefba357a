{#- mt_released with one true value changed: rows_equal_must_fail must find 2 differing rows. -#}
{{ config(enabled=var('deid_macro_tests', false), tags=['macro_tests']) }}
select rid, a, a__generalized, b, case when rid = 6 then 'y' else b__generalized end as b__generalized
from {{ ref('mt_released') }}
