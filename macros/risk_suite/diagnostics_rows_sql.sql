{#- The diagnostics model's rows (deid_diagnostics, issue 33 item 3: one long table for the
    release's pattern-level diagnostics and figures, El Emam et al. 2009 (CJHP) "Perform
    Diagnostics" and Figure 4, El Emam et al. 2011 "Measuring Information Loss" and Tables
    11-13). `cdf_queries`: risk_cdf_sql queries, one per stage; `by_query`: a
    suppression_by_sql query; `summary_query`: the risk summary (risk_summary_sql rows with the
    exact check's columns); `loss_query`: the information loss (information_loss_grouped_sql
    rows; none when the release
    releases no QI). One row per
      - diagnostic 'risk_cdf': stage, combination, risk 1/f, class_size f, records at f, the
        cumulative records and share (risk_cdf_sql);
      - diagnostic 'class_size_histogram': stage, combination, class_size, classes, records
        (read off the CDF rows: class_size_histogram_from_cdf_sql);
      - diagnostic 'suppression_by': by_column, category, column_name, column_order, records,
        suppressed, suppressed_share, missing, missing_share (suppression_by_sql);
      - diagnostic 'risk_summary': stage, combination, k, tau, records, classes,
        smallest_class, max_risk, mean_risk, classes_below_k, records_above_tau,
        share_above_tau, discernibility, min_consistent_exact, records_below_k_exact;
      - diagnostic 'information_loss': column_name, column_order (0: all QIs), records,
        suppressed_cells, share_cells_suppressed, records_with_suppression,
        share_records_with_suppression, non_uniform_entropy, precision.
    Columns a diagnostic does not have are NULL. Figures and category labels of at least k
    records only, no QI values of small classes. -#}
{% macro diagnostics_rows_sql(cdf_queries, by_query, summary_query, loss_query) -%}
  {{ return(dbt_deid.own(adapter.dispatch('diagnostics_rows_sql', 'dbt_deid'))(cdf_queries, by_query, summary_query, loss_query)) }}
{%- endmacro %}

{% macro default__diagnostics_rows_sql(cdf_queries, by_query, summary_query, loss_query) -%}
  {%- set s, n, i, f = dbt.type_string(), dbt.type_bigint(), dbt.type_int(), dbt_deid.type_double() -%}
  {%- set cols = [('stage', s), ('combination', s), ('risk', f), ('class_size', n), ('classes', n), ('records', n),
                  ('cumulative_records', n), ('cumulative_share', f),
                  ('by_column', s), ('category', s), ('column_name', s), ('column_order', i), ('suppressed', n),
                  ('suppressed_share', f), ('missing', n), ('missing_share', f),
                  ('k', n), ('tau', f), ('smallest_class', n), ('max_risk', f), ('mean_risk', f), ('classes_below_k', n),
                  ('records_above_tau', n), ('share_above_tau', f), ('discernibility', f), ('min_consistent_exact', n),
                  ('records_below_k_exact', n),
                  ('suppressed_cells', n), ('share_cells_suppressed', f), ('records_with_suppression', n),
                  ('share_records_with_suppression', f), ('non_uniform_entropy', f), ('precision', f)] -%}
  {%- set present = {
      'risk_cdf': ['stage', 'combination', 'risk', 'class_size', 'records', 'cumulative_records', 'cumulative_share'],
      'class_size_histogram': ['stage', 'combination', 'class_size', 'classes', 'records'],
      'suppression_by': ['by_column', 'category', 'column_name', 'column_order', 'records', 'suppressed', 'suppressed_share', 'missing', 'missing_share'],
      'risk_summary': ['stage', 'combination', 'k', 'tau', 'records', 'classes', 'smallest_class', 'max_risk', 'mean_risk',
                       'classes_below_k', 'records_above_tau', 'share_above_tau', 'discernibility', 'min_consistent_exact',
                       'records_below_k_exact'],
      'information_loss': ['column_name', 'column_order', 'records', 'suppressed_cells', 'share_cells_suppressed',
                           'records_with_suppression', 'share_records_with_suppression', 'non_uniform_entropy', 'precision']} -%}
  {%- set cdf %}
    {%- for q in cdf_queries %}
    select * from ({{ q }}) as c{{ loop.index }}
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
  {%- endset %}
  with deid_cdf__ as (
    {{ dbt_deid.cte_computed_once(cdf) }}
  ),
  deid_histogram__ as (
    {{ dbt_deid.class_size_histogram_from_cdf_sql('deid_cdf__') }}
  ),
  deid_by__ as (
    select * from ({{ by_query }}) as b
  ),
  deid_summary__ as (
    select * from ({{ summary_query }}) as r
  )
  {%- if loss_query is not none %},
  deid_loss__ as (
    select * from ({{ loss_query }}) as l
  )
  {%- endif %}
  {%- set parts = [('risk_cdf', 'deid_cdf__'), ('class_size_histogram', 'deid_histogram__'), ('suppression_by', 'deid_by__'), ('risk_summary', 'deid_summary__')] -%}
  {%- if loss_query is not none -%}{%- do parts.append(('information_loss', 'deid_loss__')) -%}{%- endif -%}
  {%- for diagnostic, relation in parts %}
  select cast({{ dbt_deid.literal(diagnostic) }} as {{ s }}) as diagnostic
    {%- for c, t in cols %},
    cast({{ (dbt_deid.ident(c)) if c in present[diagnostic] else 'null' }} as {{ t }}) as {{ dbt_deid.ident(c) }}
    {%- endfor %}
  from {{ relation }}
  {%- if not loop.last %}
  union all
  {%- endif %}
  {%- endfor %}
{%- endmacro %}
