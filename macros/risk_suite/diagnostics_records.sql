{#- The records deid_diagnostics groups into deid_loss_patterns in the plain chain (the map
    applied to deid_generalized, all three built by this build: dbt_deid.built_together): the
    released QIs and their `__original` columns, one row per record. By default the map is
    applied again by apply_suppression_sql on the same relations (the same rows as
    deid_suppressed; deid_suppressed itself is not read, issue 33). -#}
{% macro diagnostics_records(cfg, generalized, suppression_map) -%}
  {{ return(dbt_deid.own(adapter.dispatch('diagnostics_records', 'dbt_deid'))(cfg, generalized, suppression_map)) }}
{%- endmacro %}

{% macro default__diagnostics_records(cfg, generalized, suppression_map) -%}
  {{ return('(' ~ dbt_deid.apply_suppression_sql(cfg, generalized, suppression_map) ~ ') as deid_records__') }}
{%- endmacro %}

{#- Spark (issue 37, session 18): deid_suppressed, which this build computed by the same
    apply_suppression_sql from the same deid_generalized and map (the plain chain's condition),
    read as it is: the same rows without joining 2.4M records with the map a second time (a
    sort-merge join on Spark). -#}
{% macro spark__diagnostics_records(cfg, generalized, suppression_map) -%}
  {{ return(dbt_deid.release_ref('deid_suppressed')) }}
{%- endmacro %}
