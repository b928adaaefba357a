{#- Pieces of text concatenated per group in a stated order (the redacted document rebuilt from
    its kept spans and placeholders). -#}
{% macro ordered_string_agg(measure, order_columns) -%}
  {{ return(dbt_deid.own(adapter.dispatch('ordered_string_agg', 'dbt_deid'))(measure, order_columns)) }}
{%- endmacro %}

{% macro default__ordered_string_agg(measure, order_columns) -%}
  {{ return(dbt.listagg(measure, "''", 'order by ' ~ (order_columns | join(', ')))) }}
{%- endmacro %}

{#- Spark: dbt-spark's listagg ignores its ORDER BY (collect_list keeps arrival order, which on a
    cluster is the order the executors answer in), so the pieces are collected as structs led by
    the order columns, sorted, and joined. -#}
{% macro spark__ordered_string_agg(measure, order_columns) -%}
  {{ return("array_join(transform(sort_array(collect_list(struct(" ~ (order_columns | join(', '))
            ~ ", " ~ measure ~ " as piece__))), x -> x.piece__), '')") }}
{%- endmacro %}
