{{ config(enabled=var('deid_macro_tests', false), tags=['macro_tests']) }}
select rid, smallest_class_size, round(prosecutor_risk, 6) as prosecutor_risk
from ({{ dbt_deid.record_risk_sql(ref('mt_released'), 'rid', [['a', 'b'], ['a']]) }}) as r
