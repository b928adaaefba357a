{#- The release's gate tests (models/deid_models.yml, on deid_release_gate, the view of the gate
    table deid_gate_results): a plain failing-rows query, as dbt-utils writes tests, so
    `--store-failures` keeps the failing rows, and selection and severity work as for any test.
    `columns` are the gate table's columns the failure rows show (the message, with the
    combination or column for gates that have one: counts, limits and names only).
    The test of an optional gate the release does not declare (optional_gates: small areas,
    the attribute-disclosure models) disables itself at parse time: the gate table has no row
    of it, so the test could never fail (issue 33: a release is a handful of nodes). The
    publish step reads the gate table, not the tests, and refuses on every failing row. Any
    other test calls no config(), so the project's configs of it apply as they are. -#}
{% test deid_gate(model, gate, columns=['message']) %}
  {%- set optional = dbt_deid.optional_gates(dbt_deid.release_settings()) -%}
  {%- if gate in optional and not optional[gate] -%}{{ config(enabled=false) }}{%- endif -%}
  {{ dbt_deid.own(adapter.dispatch('test_deid_gate', 'dbt_deid'))(model, gate, columns) }}
{% endtest %}

{% macro default__test_deid_gate(model, gate, columns) %}
  select {{ columns | join(', ') }}
  from {{ model }}
  where gate = {{ dbt_deid.literal(gate) }} and not passed
{% endmacro %}
