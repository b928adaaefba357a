{#- The text release gates: generic tests with severity error, attached to deid_text_release_gate
    so that `dbt build` skips deid_text_published when one fails. Failure rows carry the measure
    name and figures only. A missing measure row fails the gate (nothing assessed, nothing
    published). -#}

{#- Direct identifiers (section 2.3.9.1): the upper 95% limit of the data's distribution
    (equation 20) must not exceed the upper 95% limit of the benchmark distribution. -#}
{% test deid_text_direct_risk(model) %}
  {{ dbt_deid.own(adapter.dispatch('test_deid_text_direct_risk', 'dbt_deid'))(model) }}
{% endtest %}

{% macro default__test_deid_text_direct_risk(model) %}
with d as (select upper, point from {{ model }} where measure = 'direct'),
b as (select upper from {{ model }} where measure = 'direct_benchmark')
select 'direct' as measure, d.point, d.upper as upper_95, b.upper as benchmark_upper_95
from (select 1 as one) as x
left join d on 1 = 1
left join b on 1 = 1
where d.upper is null or b.upper is null or not (d.upper <= b.upper)
{% endmacro %}

{#- Quasi-identifiers (section 2.3.9.2, equation 22): the upper 95% limit of the distribution of
    equation 21 must not exceed tau (the release's tau unless given). -#}
{% test deid_text_quasi_risk(model, tau=none) %}
  {{ dbt_deid.own(adapter.dispatch('test_deid_text_quasi_risk', 'dbt_deid'))(model, tau) }}
{% endtest %}

{% macro default__test_deid_text_quasi_risk(model, tau) %}
  {%- if tau is none and not dbt_deid.text_release_enabled() %}
select 'no text release declared in var deid_text_release' as error
  {%- else -%}
  {%- set tau = tau if tau is not none else dbt_deid.text_release_config().tau %}
with q as (select upper, point from {{ model }} where measure = 'quasi')
select 'quasi' as measure, q.point, q.upper as upper_95, {{ tau }} as tau
from (select 1 as one) as x
left join q on 1 = 1
where q.upper is null or not (q.upper <= {{ tau }})
  {%- endif %}
{% endmacro %}
