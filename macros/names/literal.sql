{#- A string literal for any value (names, labels, settings): single quotes doubled (standard
    SQL; PostgreSQL with standard_conforming_strings, DuckDB, Snowflake's '' too). Engines whose
    literals read backslash escapes (Spark, Databricks, BigQuery, Snowflake) escape
    backslashes, quotes and line breaks instead. A NUL character is an error. -#}
{% macro literal(value) -%}
  {{ return(dbt_deid.own(adapter.dispatch('literal', 'dbt_deid'))(value)) }}
{%- endmacro %}

{% macro default__literal(value) -%}
  {%- set text = value | string -%}
  {%- if modules.re.search('\x00', text) -%}{%- do dbt_deid._reject_nul(text, 'value') -%}{%- endif -%}
  {{ return("'" ~ text.replace("'", "''") ~ "'") }}
{%- endmacro %}

{% macro _backslash_literal(value) -%}
  {%- set text = value | string -%}
  {%- do dbt_deid._reject_nul(text, 'value') -%}
  {{ return("'" ~ text.replace('\\', '\\\\').replace("'", "\\'").replace('\n', '\\n').replace('\r', '\\r') ~ "'") }}
{%- endmacro %}

{% macro spark__literal(value) -%}{{ return(dbt_deid._backslash_literal(value)) }}{%- endmacro %}
{% macro databricks__literal(value) -%}{{ return(dbt_deid._backslash_literal(value)) }}{%- endmacro %}
{% macro bigquery__literal(value) -%}{{ return(dbt_deid._backslash_literal(value)) }}{%- endmacro %}
{% macro snowflake__literal(value) -%}{{ return(dbt_deid._backslash_literal(value)) }}{%- endmacro %}
