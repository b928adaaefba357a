{#- The optional gates of a discharge release: the gates the gate table (release_gate_results)
    has a row of only when a setting declares them, each with whether `settings` declare it:
    `small_areas` (El Emam et al. 2010), and the attribute-disclosure models (distinct, entropy
    and recursive (c,l)-diversity, Machanavajjhala et al. 2007; t-closeness, Li et al. 2007)
    with `sensitive` columns and the model's key of `attribute_disclosure` (distinct_l,
    entropy_l, recursive_c, t). `settings`: the release's raw settings (release_settings()), or
    release_config()'s cfg for the attribute-disclosure gates (the same keys; it has no
    small_areas). The gate table computes the attribute-disclosure gates of this list
    (attribute_disclosure_results), and the test of a gate not declared disables itself (test
    deid_gate): the gate has no row, so its test could never fail (issue 33). -#}
{% macro optional_gates(settings) -%}
  {{ return(dbt_deid.own(adapter.dispatch('optional_gates', 'dbt_deid'))(settings)) }}
{%- endmacro %}

{% macro default__optional_gates(settings) -%}
  {%- set raw = settings if settings is mapping else {} -%}
  {%- set ad = raw.get('attribute_disclosure') -%}
  {%- set ad = ad if ad is mapping else {} -%}
  {%- set sensitive = (raw.get('sensitive') or []) | length > 0 -%}
  {{ return({'small_areas': raw.get('small_areas') is not none,
             'distinct_l_diversity': sensitive and ad.get('distinct_l') is not none,
             'entropy_l_diversity': sensitive and ad.get('entropy_l') is not none,
             'recursive_cl_diversity': sensitive and ad.get('recursive_c') is not none,
             't_closeness': sensitive and ad.get('t') is not none}) }}
{%- endmacro %}
