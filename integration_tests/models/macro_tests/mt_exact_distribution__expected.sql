{#- mt_released on a+b: every true tuple is consistent with 2 released records (see
    mt_exact_risk__expected), so 6 records at 2. On a alone: true 1 matches the three released 1
    and the suppressed cell (4, 3 records); true 2 matches the two released 2 and the
    suppressed cell (3, 3 records). -#}
{{ config(enabled=var('deid_macro_tests', false), tags=['macro_tests']) }}
select combination, cast(consistent as hugeint) as consistent, cast(records as bigint) as records
from (values ('a+b', 2, 6), ('a', 3, 3), ('a', 4, 3)) as t(combination, consistent, records)
