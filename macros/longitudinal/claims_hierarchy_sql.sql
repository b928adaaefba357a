{#- Every declared hierarchy in long form. Each relation has level_0 (the original value) and
    level_1 .. level_h; columns are read at execution. -#}
{% macro claims_hierarchy_sql(cfg) -%}
  {{ return(dbt_deid.own(adapter.dispatch('claims_hierarchy_sql', 'dbt_deid'))(cfg)) }}
{%- endmacro %}

{% macro default__claims_hierarchy_sql(cfg) -%}
  {%- set parts = [] -%}
  {%- for q, name in cfg.hierarchies.items() -%}
    {%- set rel = dbt_deid.claims_relation(name) -%}
    {%- if not dbt_deid.can_inspect(rel) -%}{%- continue -%}{%- endif -%}
    {%- set names = adapter.get_columns_in_relation(rel) | map(attribute='name') | list -%}
    {%- if names | length == 0 -%}
      {{ exceptions.raise_compiler_error("model " ~ this.identifier ~ ": hierarchy '" ~ (name.table if name is mapping else name) ~ "' of column '" ~ q ~ "' is missing: " ~ rel ~ " does not exist in the warehouse (or has no columns); load the seed (dbt seed) or build the model first") }}
    {%- endif -%}
    {%- set levels = [] -%}
    {%- for i in range(names | length) if ('level_' ~ i) in names -%}{%- do levels.append(i) -%}{%- endfor -%}
    {%- if levels | length < 2 or levels != range(levels | length) | list -%}
      {{ exceptions.raise_compiler_error("model " ~ this.identifier ~ ": the hierarchy of " ~ q ~ " (" ~ rel ~ ") needs columns level_0, level_1, ... (columns: " ~ names | join(', ') ~ ")") }}
    {%- endif -%}
    {%- for i in levels -%}
      {%- do parts.append("select " ~ dbt_deid.literal(q) ~ " as qi_name, " ~ i ~ " as level, cast(level_0 as " ~ dbt.type_string() ~ ") as original_value, cast(level_" ~ i ~ " as " ~ dbt.type_string() ~ ") as generalized_value from " ~ rel ~ " where level_0 is not null") -%}
    {%- endfor -%}
  {%- endfor -%}
  {%- if parts | length == 0 -%}
    {#- a fresh warehouse under compile/docs/ls: a typed empty preview -#}
    {{ return("select cast(null as " ~ dbt.type_string() ~ ") as qi_name, 0 as level, cast(null as " ~ dbt.type_string() ~ ") as original_value, cast(null as " ~ dbt.type_string() ~ ") as generalized_value where 1 = 0") }}
  {%- endif -%}
  {{ return(parts | join('\nunion all\n')) }}
{%- endmacro %}
