{#- The checked release: the records the gate table checks and the publish step publishes.
    deid_suppressed, or, under `sample.order: population_first` (the population protected first,
    then the file drawn from it: El Emam et al. 2011), the file deid_sample_file, so the gates
    check what is published. -#}
{% macro checked_release() -%}
  {{ return(dbt_deid.release_ref('deid_sample_file' if dbt_deid.population_first() else 'deid_suppressed')) }}
{%- endmacro %}

{#- True when the current release declares `sample.order: population_first` (read from the raw
    settings, so it can enable a model at parse time). -#}
{% macro population_first() -%}
  {%- set sample = (dbt_deid.release_settings() or {}).get('sample') -%}
  {{ return(sample is mapping and sample.get('order') == 'population_first') }}
{%- endmacro %}
