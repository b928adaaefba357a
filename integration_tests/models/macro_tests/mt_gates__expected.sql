{#- k = 2: 4 classes below k with 4 records, smallest 1; k = 1 passes. Exact, k = 3: every
    true tuple has 2 consistent records, 6 records below; k = 2 passes. MaxSup: records 4 and 5
    have a suppressed cell, 2 of 6 = 333 per mille > 0.25 fails, <= 0.5 passes. Caps: a has 1 of
    6 cells suppressed (167 per mille) > 0.1 fails; b (1 of 6) <= 0.5 passes. -#}
{{ config(enabled=var('deid_macro_tests', false), tags=['macro_tests']) }}
select gate, cast(failures as bigint) as failures, cast(detail_1 as bigint) as detail_1,
  cast(detail_2 as bigint) as detail_2, cast(detail_3 as double) as detail_3
from (values
  ('k_anonymity k=2', 1, 4, 4, 1),
  ('k_anonymity k=1', 0, null, null, null),
  ('exact k=3', 1, 2, 6, null),
  ('exact k=2', 0, null, null, null),
  ('max_suppression 0.25', 1, 6, 2, 333),
  ('max_suppression 0.5', 0, null, null, null),
  ('column_caps', 1, 1, null, 167)
) as t(gate, failures, detail_1, detail_2, detail_3)
