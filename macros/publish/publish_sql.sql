{#- The published table: the source's columns in their order, direct identifiers dropped, QIs
    replaced by their released values (generalized, NULL where suppressed), every other column
    unchanged. Same rows as the source (joined on the record id). -#}
{% macro publish_sql(cfg, suppressed) -%}
  {{ return(adapter.dispatch('publish_sql', 'dbt_deid')(cfg, suppressed)) }}
{%- endmacro %}

{% macro default__publish_sql(cfg, suppressed) -%}
  {%- set src = dbt_deid.release_source(cfg) -%}
  {%- set rid = dbt_deid.ident(cfg.record_id) -%}
  {%- if execute -%}
    {%- set columns = adapter.get_columns_in_relation(src) -%}
  {%- else -%}
    {%- set columns = [] -%}
  {%- endif -%}
  {%- set qi_lower = cfg.qi_names | map('lower') | list -%}
  {%- set direct_lower = cfg.direct_identifiers | map('lower') | list -%}
  {%- set out = [] -%}
  {%- for col in columns -%}
    {%- if col.name | lower in direct_lower -%}
    {%- elif col.name | lower in qi_lower -%}
      {%- do out.append('s.' ~ adapter.quote(col.name) ~ ' as ' ~ adapter.quote(col.name)) -%}
    {%- else -%}
      {%- do out.append('src.' ~ adapter.quote(col.name) ~ ' as ' ~ adapter.quote(col.name)) -%}
    {%- endif -%}
  {%- endfor -%}
  select {{ out | join(',\n    ') if out else '1 as placeholder' }}
  from {{ src }} as src
  inner join {{ suppressed }} as s on s.{{ rid }} = src.{{ rid }}
{%- endmacro %}
