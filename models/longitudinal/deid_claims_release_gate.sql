{{ config(enabled=dbt_deid.claims_release_enabled(), materialized='view', tags=["deid_claims"]) }}
{%- if dbt_deid.claims_release_enabled() -%}
{%- set cfg = dbt_deid.claims_release_config() -%}
{#- The claims gate: the two gates (dbt tests, severity error) are attached to this view, and
    only the publish models read it, so `dbt build` skips publishing when a gate fails while
    the node report, the attack and the preprocessing report still build. One row per measure:
    node_risk (the release node's estimated high-risk share, or the upper limit of its 95%
    interval with gate_on: upper, against MaxSup; `message` says which limit to relax when no
    node passes), attack1 (simulated success rate against attack_tau), marketer (attack 2,
    closed form against the attack2_population counts, against tau; informational, null without
    a population table), attack3 (the largest Table 6 cell of deid_claims_attack3 against
    attack_tau; informational, only with attack3_population). -#}
select 'node_risk' as measure, l.node, l.chosen as node_found,
    {{ 'l.ci_high' if cfg.gate_on == 'upper' else 'l.mean' }} as value,
    l.mean, l.ci_low, l.ci_high,
    cast({{ cfg.max_suppression }} as {{ dbt_deid.type_double() }}) as {{ dbt_deid.ident('limit') }},
    l.chosen and {{ 'l.ci_high' if cfg.gate_on == 'upper' else 'l.mean' }} <= {{ cfg.max_suppression }} as passed,
    cast(l.message as {{ dbt.type_string() }}) as message
from {{ ref('dbt_deid', 'deid_claims_lola') }} as l
where l.release_node
union all
select 'attack1', a.node, null, a.success_rate, a.expected_rate, null, null,
    cast({{ cfg.attack_tau }} as {{ dbt_deid.type_double() }}), a.success_rate <= {{ cfg.attack_tau }}, null
from {{ ref('dbt_deid', 'deid_claims_attack') }} as a
union all
select 'marketer', a.node, null, a.marketer_risk, null, null, null, cast({{ cfg.tau }} as {{ dbt_deid.type_double() }}),
    a.marketer_risk <= {{ cfg.tau }}, null
from {{ ref('dbt_deid', 'deid_claims_attack') }} as a
{%- if cfg.attack3_population is not none %}
union all
{# attack 3 (Table 6): the largest cell of deid_claims_attack3 against attack_tau, informational #}
select 'attack3', max(a3.node), null, max(a3.marketer_risk), null, null, null,
    cast({{ cfg.attack_tau }} as {{ dbt_deid.type_double() }}), max(a3.marketer_risk) <= {{ cfg.attack_tau }}, null
from {{ ref('dbt_deid', 'deid_claims_attack3') }} as a3
{%- endif %}
{%- endif %}
