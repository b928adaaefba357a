{#- apply_suppression_sql with a map of whole patterns only: the form that joins on the pattern
    without ranking the records (test_macro_units_dbt checks that its compiled SQL ranks nothing). -#}
{{ config(enabled=var('deid_macro_tests', false), tags=['macro_tests']) }}
{{ dbt_deid.apply_suppression_sql({'record_id': 'rid', 'qi_names': ['a', 'b'], 'qis': [{'name': 'a', 'column': 'a'}, {'name': 'b', 'column': 'b'}]}, ref('mt_generalized'), ref('mt_suppression_map_whole')) }}
