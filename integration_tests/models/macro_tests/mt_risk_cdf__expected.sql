{#- Records (a, b): (1,x) x2, (1,y), (NULL,y), (2,NULL), (2,x). Classes of a+b: sizes 2, 1, 1, 1,
    1; of a: 3, 1 (NULL), 2; a record's smallest class over both: 2 for the (1,x) records, 1 for
    the other four. CDF rows ordered by class size descending (lowest risk first); histogram
    rows give records, then classes. The same rows from the records, from the patterns and (the
    histogram) read off the CDF. -#}
{{ config(enabled=var('deid_macro_tests', false), tags=['macro_tests']) }}
select input, combination, cast(class_size as bigint) as class_size, cast(records as bigint) as records,
  cast(cumulative_records as bigint) as cumulative_records, round(cumulative_share, 6) as cumulative_share
from (values
  ('records', 'a+b', 2, 2, 2, 2.0 / 6), ('records', 'a+b', 1, 4, 6, 1.0),
  ('records', 'a', 3, 3, 3, 0.5), ('records', 'a', 2, 2, 5, 5.0 / 6), ('records', 'a', 1, 1, 6, 1.0),
  ('records', '(all combinations)', 2, 2, 2, 2.0 / 6), ('records', '(all combinations)', 1, 4, 6, 1.0),
  ('patterns', 'a+b', 2, 2, 2, 2.0 / 6), ('patterns', 'a+b', 1, 4, 6, 1.0),
  ('patterns', 'a', 3, 3, 3, 0.5), ('patterns', 'a', 2, 2, 5, 5.0 / 6), ('patterns', 'a', 1, 1, 6, 1.0),
  ('patterns', '(all combinations)', 2, 2, 2, 2.0 / 6), ('patterns', '(all combinations)', 1, 4, 6, 1.0),
  ('histogram records', 'a+b', 2, 2, 1, null), ('histogram records', 'a+b', 1, 4, 4, null),
  ('histogram records', 'a', 3, 3, 1, null), ('histogram records', 'a', 2, 2, 1, null), ('histogram records', 'a', 1, 1, 1, null),
  ('histogram patterns', 'a+b', 2, 2, 1, null), ('histogram patterns', 'a+b', 1, 4, 4, null),
  ('histogram patterns', 'a', 3, 3, 1, null), ('histogram patterns', 'a', 2, 2, 1, null), ('histogram patterns', 'a', 1, 1, 1, null),
  ('histogram from cdf', 'a+b', 2, 2, 1, null), ('histogram from cdf', 'a+b', 1, 4, 4, null),
  ('histogram from cdf', 'a', 3, 3, 1, null), ('histogram from cdf', 'a', 2, 2, 1, null), ('histogram from cdf', 'a', 1, 1, 1, null)
) as t(input, combination, class_size, records, cumulative_records, cumulative_share)
