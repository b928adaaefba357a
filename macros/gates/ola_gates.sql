{#- The OLA gate (El Emam et al. 2009 (CJHP) flow chart: no solution -> relax MaxSup, tau or the maximum
    generalization): fails with one row when OLA found no node that passes; the row's `message`
    says which limit to relax, with the figures at the top node. Attached to deid_ola_levels, so
    `dbt build` skips deid_generalized and everything after it (no publish). -#}
{% test deid_ola_node_found(model) %}
  {{ dbt_deid.own(adapter.dispatch('test_deid_ola_node_found', 'dbt_deid'))(model) }}
{% endtest %}

{% macro default__test_deid_ola_node_found(model) %}
  select coalesce(max(message), 'OLA found no node that passes') as message,
    count(*) as quasi_identifiers_without_level
  from {{ model }}
  where level is null
  having count(*) > 0
{% endmacro %}
