{#- A CTE body that the engine computes once however many times the query reads the CTE
    (issue 37: Spark at 2.4 million records). Spark inlines every deterministic CTE into each
    reference and plans each copy on its own (pushing each reference's filters into it), so a
    CTE read three times is computed three times: deid_suppressed_patterns computed its released
    pattern table and the exact check's pipeline once per verified combination, and
    deid_diagnostics its grouped records (deid_loss_patterns) once per QI and figure. A CTE
    whose plan holds a non-deterministic expression is not inlined: Spark plans it once, each
    reference reading the same shuffle (exchange reuse). The Spark form adds such an
    expression as a filter that keeps every row (`rand(0)` is in [0, 1)), so the rows are the
    body's. Elsewhere the body unchanged (DuckDB and PostgreSQL: cte_materialized). -#}
{% macro cte_computed_once(sql) -%}
  {{ return(dbt_deid.own(adapter.dispatch('cte_computed_once', 'dbt_deid'))(sql)) }}
{%- endmacro %}

{% macro default__cte_computed_once(sql) -%}{{ return(sql) }}{%- endmacro %}

{% macro spark__cte_computed_once(sql) -%}
  {{ return('select * from (' ~ sql ~ ') as deid_once__ where rand(0) >= 0') }}
{%- endmacro %}
