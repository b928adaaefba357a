{{ config(enabled=var('deid_macro_tests', false), tags=['macro_tests']) }}
select combination, consistent, records
from ({{ dbt_deid.exact_consistent_distribution_sql(ref('mt_released'), [['a', 'b'], ['a']]) }}) as d
