{#- risk_cdf_sql and class_size_histogram_sql on the records and on their pattern table
    (count_column n): the pattern form must give the same rows. -#}
{{ config(enabled=var('deid_macro_tests', false), tags=['macro_tests']) }}
select 'records' as input, combination, class_size, records, cumulative_records, round(cumulative_share, 6) as cumulative_share
from ({{ dbt_deid.risk_cdf_sql(ref('mt_released'), 'rid', [['a', 'b'], ['a']], 'published') }}) as r
union all
select 'patterns', combination, class_size, records, cumulative_records, round(cumulative_share, 6)
from ({{ dbt_deid.risk_cdf_sql(ref('mt_pattern_counts'), 'rid', [['a', 'b'], ['a']], 'published', 'n') }}) as p
union all
select 'histogram records', combination, class_size, records, classes, null
from ({{ dbt_deid.class_size_histogram_sql(ref('mt_released'), [['a', 'b'], ['a']], 'published') }}) as h
union all
select 'histogram patterns', combination, class_size, records, classes, null
from ({{ dbt_deid.class_size_histogram_sql(ref('mt_pattern_counts'), [['a', 'b'], ['a']], 'published', 'n') }}) as hp
union all
select 'histogram from cdf', combination, class_size, records, classes, null
from ({{ dbt_deid.class_size_histogram_from_cdf_sql(ref('mt_risk_cdf_published')) }}) as hc
