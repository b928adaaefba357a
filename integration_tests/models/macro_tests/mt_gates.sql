{#- The release gates' queries (macros/gates/gates.sql) on the fixture: each returns one row per
    failure, none when the gate passes. -#}
{{ config(enabled=var('deid_macro_tests', false), tags=['macro_tests']) }}
{%- set rel = ref('mt_released') -%}
select 'k_anonymity k=2' as gate, cast(count(*) as bigint) as failures, max(small_classes) as detail_1, max(records_in_small_classes) as detail_2, max(smallest_class) as detail_3
from ({{ dbt_deid.gate_k_anonymity_sql(rel, [['a', 'b']], 2) }}) as g
union all
select 'k_anonymity k=1', count(*), null, null, null from ({{ dbt_deid.gate_k_anonymity_sql(rel, [['a', 'b']], 1) }}) as g
union all
select 'exact k=3', count(*), max(min_consistent), max(records_below_k), null from ({{ dbt_deid.gate_exact_sql(rel, [['a', 'b']], 3) }}) as g
union all
select 'exact k=2', count(*), null, null, null from ({{ dbt_deid.gate_exact_sql(rel, [['a', 'b']], 2) }}) as g
union all
select 'max_suppression 0.25', count(*), max(records), max(records_with_suppression), max(round(share_records_with_suppression * 1000)) from ({{ dbt_deid.gate_max_suppression_sql(rel, 0.25, ['a', 'b']) }}) as g
union all
select 'max_suppression 0.5', count(*), null, null, null from ({{ dbt_deid.gate_max_suppression_sql(rel, 0.5, ['a', 'b']) }}) as g
union all
select 'column_caps', count(*), max(suppressed_cells), null, max(round(share_suppressed * 1000)) from ({{ dbt_deid.gate_column_caps_sql(rel, [['a', 0.1], ['b', 0.5]]) }}) as g
