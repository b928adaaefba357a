{#- A small source whose rows a test passes as the var `people_rows` ([[rid, stay_ref, q0, q1],
    ...]; disabled otherwise): tests/integration/test_combined_persons_dbt.py builds a line of
    versions over a dozen records and corrects one between them (review 19, F1). -#}
{{ config(enabled=var('people_rows', none) is not none) }}
{%- for r in var('people_rows', []) %}
select cast({{ r[0] }} as integer) as rid, {{ dbt_deid.literal(r[1]) }} as stay_ref,
  {{ dbt_deid.literal(r[2]) }} as q0, {{ dbt_deid.literal(r[3]) }} as q1
{%- if not loop.last %} union all{% endif %}
{%- endfor %}
