{{ config(enabled=var('deid_macro_tests', false), tags=['macro_tests']) }}
select 'full' as variant, combination, k, min_consistent, records_below_k, tuples_evaluated
from ({{ dbt_deid.exact_risk_summary_sql(ref('mt_released'), [['a', 'b']], 3) }}) as f
union all
select 'pruned', combination, k, min_consistent, records_below_k, tuples_evaluated
from ({{ dbt_deid.exact_risk_summary_sql(ref('mt_released'), [['a', 'b']], 2, none, 2) }}) as p
union all
select 'pruned_k3', combination, k, min_consistent, records_below_k, tuples_evaluated
from ({{ dbt_deid.exact_risk_summary_sql(ref('mt_released'), [['a', 'b']], 3, none, 3) }}) as p3
{#- the same counts from the form with one union of every mask's matches (chain_limit 0; the
    forms above join the masks in one chain) #}
union all
select 'full_union', 'a+b', 3, min(consistent), coalesce(sum(case when consistent < 3 then n_true else 0 end), 0), count(*)
from ({{ dbt_deid.exact_consistent_sql(ref('mt_released'), ['a', 'b'], none, none, 0) }}) as u
union all
select 'pruned_union', 'a+b', 2, min(consistent), coalesce(sum(case when consistent < 2 then n_true else 0 end), 0), count(*)
from ({{ dbt_deid.exact_consistent_sql(ref('mt_released'), ['a', 'b'], none, 2, 0) }}) as v
union all
select 'pruned_k3_union', 'a+b', 3, min(consistent), coalesce(sum(case when consistent < 3 then n_true else 0 end), 0), count(*)
from ({{ dbt_deid.exact_consistent_sql(ref('mt_released'), ['a', 'b'], none, 3, 0) }}) as w
