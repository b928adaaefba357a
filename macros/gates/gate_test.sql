{#- The release's gate tests (models/deid_models.yml, on deid_release_gate, the view of the gate
    table deid_gate_results): a plain failing-rows query, as dbt-utils writes tests, so
    `--store-failures` keeps the failing rows, and selection and severity work as for any test.
    `columns` are the gate table's columns the failure rows show (the message, with the
    combination or column for gates that have one: counts, limits and names only). -#}
{% test deid_gate(model, gate, columns=['message']) %}
  {{ dbt_deid.own(adapter.dispatch('test_deid_gate', 'dbt_deid'))(model, gate, columns) }}
{% endtest %}

{% macro default__test_deid_gate(model, gate, columns) %}
  select {{ columns | join(', ') }}
  from {{ model }}
  where gate = {{ dbt_deid.literal(gate) }} and not passed
{% endmacro %}
