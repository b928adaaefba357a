{{ config(enabled=var('deid_macro_tests', false), tags=['macro_tests']) }}
select 'records' as input, f from ({{ dbt_deid.class_sizes_sql(ref('mt_released'), ['a', 'b']) }}) as r
union all
select 'patterns', f from ({{ dbt_deid.class_sizes_sql(ref('mt_pattern_counts'), ['a', 'b'], 'n') }}) as p
union all
select 'a only', f from ({{ dbt_deid.class_sizes_sql(ref('mt_released'), ['a']) }}) as o
