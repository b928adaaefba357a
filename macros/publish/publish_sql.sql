{#- The published table: the source's columns in their order, direct identifiers dropped, each
    QI source column replaced by its released QIs (generalized, NULL where suppressed; several
    columns when several hierarchy levels are released), every other column unchanged. Same
    rows as the source (joined on the record id). -#}
{% macro publish_sql(cfg, suppressed) -%}
  {{ return(adapter.dispatch('publish_sql', 'dbt_deid')(cfg, suppressed)) }}
{%- endmacro %}

{% macro default__publish_sql(cfg, suppressed) -%}
  {%- set src = dbt_deid.release_source(cfg) -%}  {#- the inner join keeps the release's records (its sample, if any) -#}
  {%- set rid = dbt_deid.ident(cfg.record_id) -%}
  {%- if execute -%}
    {%- set columns = adapter.get_columns_in_relation(src) -%}
  {%- else -%}
    {%- set columns = [] -%}
  {%- endif -%}
  {%- set released = cfg.released_qis -%}
  {%- set by_source = {} -%}
  {%- for q in cfg.qis -%}
    {%- set key = q.column | lower -%}
    {%- if key not in by_source -%}{%- do by_source.update({key: []}) -%}{%- endif -%}
    {%- if q.name in released -%}{%- do by_source[key].append(q.name) -%}{%- endif -%}
  {%- endfor -%}
  {%- set direct_lower = cfg.direct_identifiers | map('lower') | list -%}
  {%- set out = [] -%}
  {%- for col in columns -%}
    {%- if col.name | lower in direct_lower -%}
    {%- elif col.name | lower in by_source -%}
      {#- a source column of QIs: replaced by its released QIs (several levels may be released) -#}
      {%- for q in by_source[col.name | lower] -%}
        {%- do out.append('s.' ~ dbt_deid.ident(q) ~ ' as ' ~ dbt_deid.ident(q)) -%}
      {%- endfor -%}
    {%- else -%}
      {%- do out.append('src.' ~ adapter.quote(col.name) ~ ' as ' ~ adapter.quote(col.name)) -%}
    {%- endif -%}
  {%- endfor -%}
  select {{ out | join(',\n    ') if out else '1 as placeholder' }}
  from {{ src }} as src
  inner join {{ suppressed }} as s on s.{{ rid }} = src.{{ rid }}
{%- endmacro %}
