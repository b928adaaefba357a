{#- Top-coding (El Emam et al. 2012, "Top-Coding"): least(value, threshold) for the table's top_code
    columns, thresholds from deid_claims_top_code_thresholds; other columns unchanged. -#}
{% macro claims_top_code_sql(cfg, table, relation, thresholds) -%}
  {{ return(dbt_deid.own(adapter.dispatch('claims_top_code_sql', 'dbt_deid'))(cfg, table, relation, thresholds)) }}
{%- endmacro %}

{#- Not dbt_utils.star(except=...): the top-coded columns are replaced in place, so the column order of the input is kept. -#}
{% macro default__claims_top_code_sql(cfg, table, relation, thresholds) -%}
  {%- set cols = cfg.top_code[table] -%}
  {%- if cols | length == 0 -%}
    {{ return("select * from " ~ relation) }}
  {%- endif -%}
  {%- set names = adapter.get_columns_in_relation(relation) | map(attribute='name') | list if execute else [] -%}
  {%- set exprs = [] -%}
  {%- for c in names -%}
    {%- if c in cols -%}
      {%- do exprs.append("case when t." ~ dbt_deid.ident(c) ~ " > (select threshold from " ~ thresholds ~ " where table_name = " ~ dbt_deid.literal(table) ~ " and column_name = " ~ dbt_deid.literal(c) ~ ") then cast((select threshold from " ~ thresholds ~ " where table_name = " ~ dbt_deid.literal(table) ~ " and column_name = " ~ dbt_deid.literal(c) ~ ") as " ~ (adapter.get_columns_in_relation(relation) | selectattr('name', 'equalto', c) | first).data_type ~ ") else t." ~ dbt_deid.ident(c) ~ " end as " ~ dbt_deid.ident(c)) -%}
    {%- else -%}
      {%- do exprs.append("t." ~ dbt_deid.ident(c)) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return("select " ~ (exprs | join(', ') if exprs | length > 0 else '*') ~ " from " ~ relation ~ " as t") }}
{%- endmacro %}
