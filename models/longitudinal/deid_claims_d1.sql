{{ config(enabled=dbt_deid.claims_release_enabled(), tags=["deid_claims"]) }}
{%- if dbt_deid.claims_release_enabled() -%}
{%- set cfg = dbt_deid.claims_release_config() -%}
{#- D1 (El Emam et al. 2012, "Empirical Evaluation"): every claim of the retained patients, top-coded, with
    provider, vendor and PCP ids suppressed (NULL) where fewer than min_providers distinct ids
    share the claim's treatment pattern ("Suppression of Provider, Vendor, and PCP Identifiers").
    The simulated attack draws the adversary's knowledge from it. -#}
{{ dbt_deid.claims_provider_suppression_sql(cfg, ref('dbt_deid', 'deid_claims_top_coded_claims')) }}
{%- endif %}
