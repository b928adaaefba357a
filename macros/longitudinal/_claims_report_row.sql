{#- One row of deid_claims_preprocessing_report (appended to rows as SQL). -#}
{% macro _claims_report_row(rows, order, step, table, rows_in, rows_out, measure, value) -%}
  {%- do rows.append("select " ~ order ~ " as step_order, " ~ dbt_deid.literal(step) ~ " as step, " ~ dbt_deid.literal(table) ~ " as table_name, ("
      ~ rows_in ~ ") as rows_in, (" ~ rows_out ~ ") as rows_out, " ~ dbt_deid.literal(measure) ~ " as measure, cast((" ~ value ~ ") as " ~ dbt_deid.type_double() ~ ") as value") -%}
{%- endmacro %}
