{{ config(enabled=dbt_deid.claims_release_enabled(), tags=["deid_claims"]) }}
{%- if dbt_deid.claims_release_enabled() -%}
{%- set cfg = dbt_deid.claims_release_config() -%}
{#- D2 (El Emam et al. 2012, "Truncation of Claims"): D1 with the claims per patient truncated at the
    truncate_percentile of claims per patient, each patient's highest-scoring claims removed
    first (claim score: sum over claim QIs of -log2(share of claims with the claim's value);
    ties: the later claim id goes first). The released claims. -#}
{{ dbt_deid.claims_truncate_sql(cfg, ref('dbt_deid', 'deid_claims_d1')) }}
{%- endif %}
