{{ config(enabled=var('deid_macro_tests', false), tags=['macro_tests']) }}
select 'full' as variant, combination, k, min_consistent, records_below_k, tuples_evaluated
from ({{ dbt_deid.exact_risk_summary_sql(ref('mt_released'), [['a', 'b']], 3) }}) as f
union all
select 'pruned', combination, k, min_consistent, records_below_k, tuples_evaluated
from ({{ dbt_deid.exact_risk_summary_sql(ref('mt_released'), [['a', 'b']], 2, none, 2) }}) as p
