{#- Whether the refresh's record states (refresh_line.sql, `_refresh_states_ctes`) take the
    records with one state past the window over each record's states (true: their rank is 1 and
    each window maximum is the state's own value, so the rows are the same; the window then runs
    over the states of records with two or more, which a refresh has only for changed records).
    The split reads the grouped states three times: DuckDB and PostgreSQL compute a CTE read
    more than once once; Spark keeps the one window over every state (its plan unchanged). -#}
{% macro refresh_states_split() -%}
  {{ return(dbt_deid.own(adapter.dispatch('refresh_states_split', 'dbt_deid'))()) }}
{%- endmacro %}

{% macro default__refresh_states_split() -%}
  {{ return(true) }}
{%- endmacro %}

{% macro spark__refresh_states_split() -%}
  {{ return(false) }}
{%- endmacro %}
