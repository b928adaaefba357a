{#- Null-safe equality of two aliases' columns, pairwise (a NULL matches only NULL): plain
    equalities, so every engine hashes the join (values compared as text). -#}
{% macro null_safe_equal_sql(left, right, left_columns, right_columns) -%}
  {%- for i in range(left_columns | length) -%}
    {%- set l = left ~ '.' ~ left_columns[i] -%}{%- set r = right ~ '.' ~ right_columns[i] -%}
    coalesce(cast({{ l }} as {{ dbt.type_string() }}), '') = coalesce(cast({{ r }} as {{ dbt.type_string() }}), '') and ({{ l }} is null) = ({{ r }} is null)
    {%- if not loop.last %}
      and {% endif -%}
  {%- endfor -%}
{%- endmacro %}
