{#- The diagnostics model's rows (deid_diagnostics, issue 33 item 3: one long table for the
    release's pattern-level diagnostics, El Emam et al. 2009 (CJHP) "Perform Diagnostics" and
    Figure 4, El Emam et al. 2011 Tables 11-13). `cdf_queries`: risk_cdf_sql queries, one per
    stage; `by_query`: a suppression_by_sql query. One row per
      - diagnostic 'risk_cdf': stage, combination, risk 1/f, class_size f, records at f, the
        cumulative records and share (risk_cdf_sql);
      - diagnostic 'class_size_histogram': stage, combination, class_size, classes, records
        (read off the CDF rows: class_size_histogram_from_cdf_sql);
      - diagnostic 'suppression_by': by_column, category, column_name, column_order, records,
        suppressed, suppressed_share, missing, missing_share (suppression_by_sql).
    Columns a diagnostic does not have are NULL. Figures and category labels of at least k
    records only, no QI values of small classes. -#}
{% macro diagnostics_rows_sql(cdf_queries, by_query) -%}
  {{ return(dbt_deid.own(adapter.dispatch('diagnostics_rows_sql', 'dbt_deid'))(cdf_queries, by_query)) }}
{%- endmacro %}

{% macro default__diagnostics_rows_sql(cdf_queries, by_query) -%}
  {%- set s, n, i, f = dbt.type_string(), dbt.type_bigint(), dbt.type_int(), dbt_deid.type_double() -%}
  {%- set cdf_cols = [('stage', s), ('combination', s), ('risk', f), ('class_size', n), ('classes', n), ('records', n), ('cumulative_records', n), ('cumulative_share', f)] -%}
  {%- set by_cols = [('by_column', s), ('category', s), ('column_name', s), ('column_order', i), ('suppressed', n), ('suppressed_share', f), ('missing', n), ('missing_share', f)] -%}
  {%- set names = ['stage', 'combination', 'risk', 'class_size', 'classes', 'records', 'cumulative_records', 'cumulative_share',
                   'by_column', 'category', 'column_name', 'column_order', 'suppressed', 'suppressed_share', 'missing', 'missing_share'] -%}
  {%- set types = dict(cdf_cols + by_cols) -%}
  {%- set present = {
      'risk_cdf': ['stage', 'combination', 'risk', 'class_size', 'records', 'cumulative_records', 'cumulative_share'],
      'class_size_histogram': ['stage', 'combination', 'class_size', 'classes', 'records'],
      'suppression_by': ['by_column', 'category', 'column_name', 'column_order', 'records', 'suppressed', 'suppressed_share', 'missing', 'missing_share']} -%}
  with deid_cdf__ as (
    {%- for q in cdf_queries %}
    select * from ({{ q }}) as c{{ loop.index }}
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
  ),
  deid_histogram__ as (
    {{ dbt_deid.class_size_histogram_from_cdf_sql('deid_cdf__') }}
  ),
  deid_by__ as (
    select * from ({{ by_query }}) as b
  )
  {%- for diagnostic, relation in [('risk_cdf', 'deid_cdf__'), ('class_size_histogram', 'deid_histogram__'), ('suppression_by', 'deid_by__')] %}
  select cast({{ dbt_deid.literal(diagnostic) }} as {{ s }}) as diagnostic
    {%- for c in names %},
    cast({{ (dbt_deid.ident(c)) if c in present[diagnostic] else 'null' }} as {{ types[c] }}) as {{ dbt_deid.ident(c) }}
    {%- endfor %}
  from {{ relation }}
  {%- if not loop.last %}
  union all
  {%- endif %}
  {%- endfor %}
{%- endmacro %}
