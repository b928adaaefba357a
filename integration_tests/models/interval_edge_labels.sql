{#- dbt_deid.interval_sql on edge values (tests/integration/test_interval_rules_dbt.py passes
    the specs and the typed inputs as vars; disabled otherwise). One row per spec, input type and
    value with the label the macro computes. -#}
{{ config(enabled=var('interval_edge_specs', none) is not none) }}
{%- set specs = var('interval_edge_specs', []) -%}
{%- set inputs = var('interval_edge_inputs', []) -%}
{%- for spec in specs %}
{%- set spec_no = loop.index0 %}
{%- for inp in inputs %}
select {{ spec_no }} as spec_no, {{ dbt_deid.literal(inp.type) }} as value_type, x.value_no,
  {{ dbt_deid.interval_sql(spec, 'x.v') }} as label
from (
  {%- for no, text in inp['values'] %}
  select {{ no }} as value_no, {{ ('cast(' ~ dbt_deid.literal(text) ~ ' as ' ~ inp.type ~ ')') if text is not none else 'cast(null as ' ~ inp.type ~ ')' }} as v
  {%- if not loop.last %} union all{% endif %}
  {%- endfor %}
) as x
{%- if not (loop.last and spec_no == specs | length - 1) %}
union all
{%- endif %}
{%- endfor %}
{%- endfor %}
