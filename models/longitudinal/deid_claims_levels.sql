{{ config(enabled=dbt_deid.claims_release_enabled(), tags=["deid_claims"]) }}
{%- if dbt_deid.claims_release_enabled() -%}
{%- set cfg = dbt_deid.claims_release_config() -%}
{#- The release levels: one row per hierarchical quasi-identifier with its lattice dimension and
    level at the release node of deid_claims_lola (LOLA's chosen node; the top node when no node
    passes, node_found false, and the node-risk gate fails). -#}
{{ dbt_deid.claims_levels_sql(cfg, ref('dbt_deid', 'deid_claims_lola')) }}
{%- endif %}
