{#- Per record, the smaller of its (a, b) and (a) class sizes and 1 / that size. -#}
{{ config(enabled=var('deid_macro_tests', false), tags=['macro_tests']) }}
select rid, cast(smallest_class_size as bigint) as smallest_class_size, round(1.0 / smallest_class_size, 6) as prosecutor_risk
from (values (1, 2), (2, 2), (3, 1), (4, 1), (5, 1), (6, 1)) as t(rid, smallest_class_size)
