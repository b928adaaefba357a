{#- (a, b): 6 records in 5 classes, smallest 1 (risk 1), mean risk 5/6, 4 classes below k = 2
    holding 4 records (4/6 above tau), discernibility 2^2 + 4 x 1^2 = 8.
    (a): classes 3, 2, 1: smallest 1, mean 3/6, one class below 2 (1 record), 9 + 4 + 1 = 14. -#}
{{ config(enabled=var('deid_macro_tests', false), tags=['macro_tests']) }}
select stage, combination, k, tau, cast(records as bigint) as records, cast(classes as bigint) as classes,
  cast(smallest_class as bigint) as smallest_class, round(max_risk, 6) as max_risk,
  round(mean_risk, 6) as mean_risk, cast(classes_below_k as bigint) as classes_below_k,
  cast(records_above_tau as bigint) as records_above_tau, round(share_above_tau, 6) as share_above_tau,
  cast(discernibility as double) as discernibility
from (values
  ('fixture', 'a+b', 2, 0.5, 6, 5, 1, 1.0, 5.0 / 6, 4, 4, 4.0 / 6, 8.0),
  ('fixture', 'a', 2, 0.5, 6, 3, 1, 1.0, 3.0 / 6, 1, 1, 1.0 / 6, 14.0)
) as t(stage, combination, k, tau, records, classes, smallest_class, max_risk, mean_risk,
       classes_below_k, records_above_tau, share_above_tau, discernibility)
