{{ config(enabled=var('deid_macro_tests', false), tags=['macro_tests']) }}
select stage, combination, k, tau, records, classes, smallest_class, round(max_risk, 6) as max_risk,
  round(mean_risk, 6) as mean_risk, classes_below_k, records_above_tau,
  round(share_above_tau, 6) as share_above_tau, discernibility
from ({{ dbt_deid.risk_summary_sql(ref('mt_released'), [['a', 'b'], ['a']], 2, 0.5, 'fixture') }}) as s
