{#- The claims release gates (LOLA, El Emam et al. 2012): generic tests with severity error, attached to
    deid_claims_release_gate so that `dbt build` skips deid_claims_published_patients and
    deid_claims_published_claims when one fails. Failure rows carry the measure, the node, the
    figures and a `reason`; a missing measure row fails the gate. Limits come from var
    deid_claims_release (claims_release_config), not from the table. -#}

{#- Node risk ("Node Computation", equation 5): LOLA found a node, and its estimated share of
    high-risk patients (or the upper limit of its 95% interval with gate_on: upper) is <= MaxSup.
    When no node passes, the reason is the LOLA model's message: the figures at the top node and
    which limit to relax (MaxSup, tau, the adversary power, the hierarchies), as OLA's gate. -#}
{% test deid_claims_node_risk(model) %}
  {{ dbt_deid.own(adapter.dispatch('test_deid_claims_node_risk', 'dbt_deid'))(model) }}
{% endtest %}

{% macro default__test_deid_claims_node_risk(model) %}
  {%- if not dbt_deid.claims_release_enabled() %}
select 'no claims release declared in var deid_claims_release' as reason
  {%- else -%}
  {%- set cfg = dbt_deid.claims_release_config() %}
with g as (select * from {{ model }} where measure = 'node_risk')
select 'node_risk' as measure, g.node, g.mean, g.ci_low, g.ci_high,
    {{ cfg.max_suppression }} as max_sup,
    case
      when g.node is null then 'LOLA evaluated no node'
      when not g.node_found then coalesce(g.message, 'no lattice node has an estimated high-risk share <= MaxSup ' || '{{ cfg.max_suppression }}' || ' (the top node ' || g.node || ' has ' || cast(g.mean as {{ dbt.type_string() }}) || ')')
      else 'the {{ "upper 95% limit" if cfg.gate_on == "upper" else "estimated high-risk share" }} of node ' || g.node || ' exceeds MaxSup {{ cfg.max_suppression }}'
    end as reason
from (select 1 as one) as x
left join g on 1 = 1
where g.node is null or not g.node_found
   or not ({{ 'g.ci_high' if cfg.gate_on == 'upper' else 'g.mean' }} <= {{ cfg.max_suppression }})
  {%- endif %}
{% endmacro %}

{#- Attack 1 ("Empirical Evaluation"): the simulated success rate at the release node is <=
    attack_tau (default tau). -#}
{% test deid_claims_attack_risk(model) %}
  {{ dbt_deid.own(adapter.dispatch('test_deid_claims_attack_risk', 'dbt_deid'))(model) }}
{% endtest %}

{% macro default__test_deid_claims_attack_risk(model) %}
  {%- if not dbt_deid.claims_release_enabled() %}
select 'no claims release declared in var deid_claims_release' as reason
  {%- else -%}
  {%- set cfg = dbt_deid.claims_release_config() %}
with g as (select * from {{ model }} where measure = 'attack1')
select 'attack1' as measure, g.node, g.value as success_rate, {{ cfg.attack_tau }} as attack_tau,
    case when g.value is null then 'the simulated attack did not run'
         else 'simulated attack 1 succeeds at rate ' || cast(g.value as {{ dbt.type_string() }}) || ' > {{ cfg.attack_tau }} at node ' || g.node end as reason
from (select 1 as one) as x
left join g on 1 = 1
where g.value is null or not (g.value <= {{ cfg.attack_tau }})
  {%- endif %}
{% endmacro %}
