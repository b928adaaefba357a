{#- A double-precision float type name: `double` on DuckDB, Spark, Snowflake, Databricks;
    PostgreSQL spells it `double precision` (dbt.type_float() is single precision on DuckDB). -#}
{% macro type_double() -%}
  {{ return(dbt_deid.own(adapter.dispatch('type_double', 'dbt_deid'))()) }}
{%- endmacro %}

{% macro default__type_double() -%}double{%- endmacro %}

{% macro postgres__type_double() -%}double precision{%- endmacro %}

{#- Base-2 logarithm: log2(x) on DuckDB, Spark, Snowflake, Databricks; PostgreSQL has log(b, x)
    for numeric only, so ln(x) / ln(2) in double precision there. -#}
{% macro log2_sql(expr) -%}
  {{ return(dbt_deid.own(adapter.dispatch('log2_sql', 'dbt_deid'))(expr)) }}
{%- endmacro %}

{% macro default__log2_sql(expr) -%}log2({{ expr }}){%- endmacro %}

{% macro postgres__log2_sql(expr) -%}(ln({{ expr }}) / ln(2.0::double precision)){%- endmacro %}
