{#- Fixture for mt_risk_cdf: the risk CDF of mt_released's published stage, as a relation for
    class_size_histogram_from_cdf_sql. -#}
{{ config(enabled=var('deid_macro_tests', false), tags=['macro_tests']) }}
{{ dbt_deid.risk_cdf_sql(ref('mt_released'), 'rid', [['a', 'b'], ['a']], 'published') }}
