{#- For the publish step's "N gates passed" line (review 12, L2): ", including the verdicts of
    all 10 gates this release requires" when `results` hold the gate_table result read from a
    complete gate table (read_gate_table's `expected`), else nothing (the claims and text
    gate sets). A gate table missing one is refused, so the count shown is the expected one. -#}
{% macro gate_set_note(results) -%}
  {%- for r in results if r.gate == 'gate_table' and r.get('expected') is not none -%}
    {{ return(', including the verdicts of all ' ~ r.expected | length ~ ' gates this release requires (' ~ r.expected | join(', ') ~ ')') }}
  {%- endfor -%}
  {{ return('') }}
{%- endmacro %}
