{{ config(enabled=var('deid_macro_tests', false), tags=['macro_tests']) }}
{{ dbt_deid.pattern_counts_sql(ref('mt_released'), ['a', 'b']) }}
