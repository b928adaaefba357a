{{ config(enabled=dbt_deid.release_enabled()) }}
{%- if dbt_deid.release_enabled() -%}
{%- set cfg = dbt_deid.release_config() -%}
{%- set cols = [] -%}
{%- for q in cfg.qi_names -%}
  {%- do cols.append(q) -%}{%- do cols.append(q ~ '__generalized') -%}
{%- endfor -%}
{{ dbt_deid.pattern_counts_sql(ref('deid_suppressed'), cols) }}
{%- endif %}
