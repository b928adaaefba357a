{{ config(enabled=dbt_deid.release_enabled()) }}
{%- if dbt_deid.release_enabled() -%}
{%- set cfg = dbt_deid.release_config() -%}
{{ dbt_deid.class_size_histogram_sql(ref('deid_generalized'), cfg.combinations, 'original') }}
union all
{{ dbt_deid.class_size_histogram_sql(ref('deid_generalized'), cfg.combinations, 'generalized') }}
union all
{{ dbt_deid.class_size_histogram_sql(ref('deid_suppressed'), cfg.combinations, 'published') }}
{%- endif %}
