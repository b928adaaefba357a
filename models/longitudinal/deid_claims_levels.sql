{{ config(enabled=dbt_deid.claims_release_enabled(), tags=["deid_claims"]) }}
{%- if dbt_deid.claims_release_enabled() -%}
{%- set cfg = dbt_deid.claims_release_config() -%}
{#- The release levels: one row per hierarchical quasi-identifier with its lattice dimension and
    level at the release node of deid_claims_lola (LOLA's chosen node; the top node when no node
    passes, node_found false, and the node-risk gate fails). -#}
{%- for d in cfg.dimensions %}
{%- set outer = loop %}
{%- for c in d.columns %}
select {{ dbt_deid.literal(d.name) }} as dimension, {{ dbt_deid.literal(c) }} as column_name,
    {{ dbt_deid.literal('patients' if c in cfg.demographic_qis else 'claims') }} as table_name,
    {{ dbt_deid.ident('level__' ~ d.name) }} as level, node, chosen as node_found
from {{ ref('dbt_deid', 'deid_claims_lola') }} where release_node
{%- if not (outer.last and loop.last) %}
union all
{%- endif %}
{%- endfor %}
{%- endfor %}
{%- endif %}
