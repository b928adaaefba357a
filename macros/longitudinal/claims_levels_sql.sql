{#- The release levels as SQL: one row per hierarchical quasi-identifier (dimension,
    column_name, table_name, level, node, node_found) at the release node of `lola`
    (deid_claims_lola: LOLA's chosen node, or the top node when none passes). The model
    deid_claims_levels, and the claims publish gates' generalization of the bound inputs
    (claims_table_gate_results), which read the release node from the LOLA table itself. -#}
{% macro claims_levels_sql(cfg, lola) -%}
  {{ return(dbt_deid.own(adapter.dispatch('claims_levels_sql', 'dbt_deid'))(cfg, lola)) }}
{%- endmacro %}

{% macro default__claims_levels_sql(cfg, lola) -%}
{%- for d in cfg.dimensions %}
{%- set outer = loop %}
{%- for c in d.columns %}
select {{ dbt_deid.literal(d.name) }} as dimension, {{ dbt_deid.literal(c) }} as column_name,
    {{ dbt_deid.literal('patients' if c in cfg.demographic_qis else 'claims') }} as table_name,
    {{ dbt_deid.ident('level__' ~ d.name) }} as level, node, chosen as node_found
from {{ lola }} where release_node
{%- if not (outer.last and loop.last) %}
union all
{%- endif %}
{%- endfor %}
{%- endfor %}
{%- endmacro %}
