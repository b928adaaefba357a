{#- Information loss per QI and for the whole release (El Emam et al. 2011 "Measuring Information Loss"):
    suppressed cells and their share, records with any suppressed QI and their share, and
    non-uniform entropy: for each record and QI, -log2 of the share of records with its original
    value (read from the `__original` column of its source column, original_value_sources)
    among the records that share its released value (a suppressed cell's released value
    covers all records). With the hierarchy relation, precision Prec (Sweeney; El Emam et al. 2009 (CJHP)):
    1 - mean over cells of level/height, a suppressed cell counting as the full height. -#}
{% macro information_loss_sql(cfg, suppressed, hierarchy=none) -%}
  {{ return(dbt_deid.own(adapter.dispatch('information_loss_sql', 'dbt_deid'))(cfg, suppressed, hierarchy)) }}
{%- endmacro %}

{#- Not dbt_utils.unpivot: each row is a set of aggregates computed per column (suppressed cells, entropy, precision), not a stored column turned into rows.
    The records are read once (issue 33, item 2): grouped by every released QI and every
    `__original` column into a pattern table with counts (the CTE deid_loss_patterns,
    materialized where the engine has the keyword: information_loss_patterns_cte), from which
    information_loss_grouped_sql computes each figure term for term as from the records. -#}
{% macro default__information_loss_sql(cfg, suppressed, hierarchy) -%}
  {%- if cfg.released_qis | length == 0 -%}{{ return('select 1 as placeholder') }}{%- endif -%}
  with {{ dbt_deid.information_loss_patterns_cte(cfg, suppressed) }}
  {{ dbt_deid.information_loss_grouped_sql(cfg, 'deid_loss_patterns', hierarchy, 'n') }}
{%- endmacro %}

{#- The CTE deid_loss_patterns: `suppressed` grouped by the released QIs and their `__original`
    columns (and the `__original` columns of the verified combinations' QIs, so the original
    stage's risk CDF reads it too: deid_diagnostics), with the record count n. -#}
{% macro information_loss_patterns_cte(cfg, suppressed) -%}
  {%- set sources = dbt_deid.original_value_sources(cfg) -%}
  {%- set cols = [] -%}
  {%- for q in cfg.released_qis -%}
    {%- for c in [q, sources[q] ~ '__original'] -%}
      {%- if dbt_deid.ident(c) not in cols -%}{%- do cols.append(dbt_deid.ident(c)) -%}{%- endif -%}
    {%- endfor -%}
  {%- endfor -%}
  {%- for b in cfg.verified_combinations -%}{%- for q in b -%}
    {%- set c = dbt_deid.ident(sources[q] ~ '__original') -%}
    {%- if c not in cols -%}{%- do cols.append(c) -%}{%- endif -%}
  {%- endfor -%}{%- endfor -%}
  deid_loss_patterns as {{ dbt_deid.cte_materialized() }}(
    {{ dbt_deid.cte_computed_once('select ' ~ cols | join(', ') ~ ', count(*) as n from ' ~ suppressed ~ ' group by ' ~ cols | join(', ')) }}
  )
{%- endmacro %}

{#- The keyword that makes a CTE referenced several times computed once: DuckDB and PostgreSQL
    have `materialized`; elsewhere nothing (the engine decides). -#}
{% macro cte_materialized() -%}
  {{ return(adapter.dispatch('cte_materialized', 'dbt_deid')()) }}
{%- endmacro %}

{% macro default__cte_materialized() -%}{{ return('') }}{%- endmacro %}

{% macro duckdb__cte_materialized() -%}{{ return('materialized ') }}{%- endmacro %}

{% macro postgres__cte_materialized() -%}{{ return('materialized ') }}{%- endmacro %}

{#- The same figures in one pass per QI, for engines where the portable form is slow (issue 37):
    default__information_loss_sql scans deid_suppressed about five times per QI (a scalar
    subquery per figure, two joined GROUP BYs per entropy term); PostgreSQL without statistics
    on the fresh table planned it 81x DuckDB's time at 2.4 million records, and Spark runs every
    scalar subquery as a job of its own. Here one scan counts every QI's unsuppressed cells and
    the records with any suppressed QI, and each QI's entropy (El Emam et al. 2011, "Measuring
    Information Loss") comes from one GROUP BY of (original, released) whose window sums give
    the released value's records (unsuppressed cells) and the original value's records
    (suppressed cells, whose released value covers all records). The arithmetic is the default
    form's, term for term. -#}
{% macro postgres__information_loss_sql(cfg, suppressed, hierarchy) -%}
  {%- if execute and flags.WHICH in ['run', 'build'] -%}
    {%- do run_query("analyze " ~ suppressed) -%}
  {%- endif -%}
  {{ return(dbt_deid.information_loss_grouped_sql(cfg, suppressed, hierarchy)) }}
{%- endmacro %}

{% macro spark__information_loss_sql(cfg, suppressed, hierarchy) -%}
  {{ return(dbt_deid.information_loss_grouped_sql(cfg, suppressed, hierarchy)) }}
{%- endmacro %}
