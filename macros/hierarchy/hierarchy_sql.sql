{#- The long hierarchy table of a release: one row per (qi_name, level, original_value) with its
    generalized_value. Lookup hierarchies (seeds or models whose first column is the original
    value and whose next columns are levels 1, 2, ...) are unpivoted; rule-based QIs are
    materialized from the distinct source values. Validates duplicate keys, missing levels and
    NULL generalizations, naming the model, column and value. -#}
{% macro hierarchy_sql(cfg) -%}
  {{ return(dbt_deid.own(adapter.dispatch('hierarchy_sql', 'dbt_deid'))(cfg)) }}
{%- endmacro %}

{% macro default__hierarchy_sql(cfg) -%}
  {{ return(dbt_deid.hierarchy_union_sql(cfg, one_scan=false)) }}
{%- endmacro %}

{#- Spark (issue 37): the distinct values of every rule-based source column from one GROUPING
    SETS pass over the source (one scan and one shuffle) instead of a DISTINCT per branch (a
    scan and a shuffle per source column, each its own stage: deid_hierarchy took 14-16x
    DuckDB's time at 20,000 and 2.4 million records), and one UNION ALL branch per source
    (lookup relation or scanned column), its levels unpivoted by a generator (`stacked`,
    session 18), not one branch per QI and level. Same rows. -#}
{% macro spark__hierarchy_sql(cfg) -%}
  {{ return(dbt_deid.hierarchy_union_sql(cfg, one_scan=true, stacked=true)) }}
{%- endmacro %}

{#- DuckDB and PostgreSQL: the same one GROUPING SETS pass (the source read once for every
    rule-based column, issue 33), its CTE materialized so the branches do not each re-run it. -#}
{% macro duckdb__hierarchy_sql(cfg) -%}
  {{ return(dbt_deid.hierarchy_union_sql(cfg, one_scan=true)) }}
{%- endmacro %}

{% macro postgres__hierarchy_sql(cfg) -%}
  {{ return(dbt_deid.hierarchy_union_sql(cfg, one_scan=true)) }}
{%- endmacro %}
