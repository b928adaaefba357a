{#- Checks of a lookup hierarchy: enough levels for the released level, no duplicate original
    value, no NULL in any level. Raises an error naming the QI, the hierarchy and the value. -#}
{% macro assert_lookup_hierarchy(q, relation, cols) -%}
  {{ return(dbt_deid.own(adapter.dispatch('assert_lookup_hierarchy', 'dbt_deid'))(q, relation, cols)) }}
{%- endmacro %}

{% macro default__assert_lookup_hierarchy(q, relation, cols) -%}
  {%- set where = "model " ~ this.identifier ~ ": hierarchy '" ~ q.hierarchy ~ "' of column '" ~ q.name ~ "'" -%}
  {%- if cols | length == 0 -%}
    {{ exceptions.raise_compiler_error(where ~ " is missing: " ~ relation ~ " does not exist in the warehouse (or has no columns); load the seed (dbt seed) or build the model first") }}
  {%- endif -%}
  {%- if cols | length < q.level + 1 -%}
    {{ exceptions.raise_compiler_error(where ~ " has " ~ (cols | length - 1) ~ " levels but level " ~ q.level ~ " is released") }}
  {%- endif -%}
  {%- set key = dbt_deid.ident(cols[0].name) -%}
  {%- set dup -%}
    select cast({{ key }} as {{ dbt.type_string() }}) as v, count(*) as n from {{ relation }} group by {{ key }} having count(*) > 1 order by 1 limit 3
  {%- endset -%}
  {%- set rows = run_query(dup).rows -%}
  {%- if rows | length > 0 -%}
    {{ exceptions.raise_compiler_error(where ~ " has duplicate key value '" ~ rows[0][0] ~ "' (" ~ rows[0][1] ~ " rows)") }}
  {%- endif -%}
  {%- set nulls = [] -%}
  {%- for col in cols -%}
    {%- do nulls.append("select " ~ loop.index0 ~ " as level, cast(" ~ key ~ " as " ~ dbt.type_string() ~ ") as v from " ~ relation ~ " where " ~ dbt_deid.ident(col.name) ~ " is null") -%}
  {%- endfor -%}
  {%- set rows = run_query("select level, v from (" ~ nulls | join(' union all ') ~ ") as x order by level, v limit 1").rows -%}
  {%- if rows | length > 0 -%}
    {{ exceptions.raise_compiler_error(where ~ " has an empty value at level " ~ rows[0][0] ~ " for key '" ~ rows[0][1] ~ "'") }}
  {%- endif -%}
{%- endmacro %}
