{#- The release's gate tests (models/deid_models.yml, on the gate table deid_gate_results): a
    plain failing-rows query, as dbt-utils writes tests, so `--store-failures` keeps the failing
    rows, and selection and severity work as in dbt-utils.
    `columns` are the gate table's columns the failure rows show (the message, with the
    combination or column for gates that have one: counts, limits and names only).
    Each test also depends on the release's deid_diagnostics (a ref, no read). In `dbt build`
    dbt makes a node wait for a test, and skips it when the test fails, when every node the
    test depends on is upstream of it (dbt-core's Linker.add_test_edges): with the gate table
    and deid_diagnostics, that is the publish model only (it depends on both), while the
    diagnostics, the report and the other readers of the gate table (which do not depend on
    deid_diagnostics) still build for a refused release. A test on the gate table alone would
    skip every reader of it (docs/gate-once.md, "The gate tests on the gate table").
    The test of an optional gate the release does not declare (optional_gates: small areas,
    the attribute-disclosure models) disables itself at parse time: the gate table has no row
    of it, so the test could never fail (issue 33: a release is a handful of nodes). The
    publish step reads the gate table, not the tests, and refuses on every failing row. Any
    other test calls no config(), so the project's configs of it apply as they are. -#}
{% test deid_gate(model, gate, columns=['message']) %}
  {%- set optional = dbt_deid.optional_gates(dbt_deid.release_settings()) -%}
  {%- if gate in optional and not optional[gate] -%}{{ config(enabled=false) }}{%- endif -%}
  {%- do dbt_deid.release_ref('deid_diagnostics') -%}
  {{ dbt_deid.own(adapter.dispatch('test_deid_gate', 'dbt_deid'))(model, gate, columns) }}
{% endtest %}

{% macro default__test_deid_gate(model, gate, columns) %}
  select {{ columns | join(', ') }}
  from {{ model }}
  where gate = {{ dbt_deid.literal(gate) }} and not passed
{% endmacro %}
