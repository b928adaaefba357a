{#- True when the data checks (empty source, record ids, hierarchy values, column roles, ...)
    run: when building (`run`, `build`, `test`, ...), not while parsing nor under the commands
    that only compile or list (`compile`, `docs generate`, `ls`), which build nothing and must
    work on any warehouse, fresh or built with `--empty`. -#}
{% macro run_data_checks() -%}
  {{ return(execute and not dbt_deid._compile_only_command()) }}
{%- endmacro %}

{#- False when an introspective query on `relation` must be skipped: while parsing,
    or, under a command that only compiles or lists (`compile`, `docs generate`, `ls`), when
    the relation has not been built yet (a fresh warehouse: the compiled SQL is then a preview
    without the checks, which run again when the release is built). Commands that build always
    run the checks: a missing relation there fails as before (fail closed). -#}
{% macro can_inspect(relation) -%}
  {%- if not execute -%}{{ return(false) }}{%- endif -%}
  {%- if not dbt_deid._compile_only_command() -%}{{ return(true) }}{%- endif -%}
  {%- set rel = relation if relation is not string else none -%}
  {%- if rel is none or rel.identifier is not defined -%}{{ return(true) }}{%- endif -%}
  {{ return(adapter.get_relation(database=rel.database, schema=rel.schema, identifier=rel.identifier) is not none) }}
{%- endmacro %}
