{#- `dispatched`, the macro adapter.dispatch(name, 'dbt_deid') found, when it is dbt_deid's own;
    otherwise the build fails naming the macro that replaced the package's.

    dbt's `adapter.dispatch(name, 'dbt_deid')` searches the ROOT project first, then the package
    (dbt/context/providers.py, BaseDatabaseWrapper._get_search_packages; a project's `dispatch:`
    config can put any package first): a root-project macro named `default__<name>` would
    silently replace the package's gate queries, publish helpers or model bodies (issue 32,
    item 3). Every dispatch of the package is wrapped in this macro,
    `dbt_deid.own(adapter.dispatch('<name>', 'dbt_deid'))(...)`: the literal dispatch call keeps
    dbt's static macro dependencies (a test node only sees the macros its SQL names), and this
    check makes an override a build failure instead of a silent replacement (docs/overrides.md).
    -#}
{% macro own(dispatched) -%}
  {%- set m = dispatched.macro if dispatched.macro is defined else none -%}
  {%- if m is not none and m.package_name != 'dbt_deid' -%}
    {{ exceptions.raise_compiler_error(dbt_deid.override_message(m.package_name ~ '.' ~ m.name ~ ' (' ~ m.original_file_path ~ ') overrides the dbt_deid macro of that name (adapter.dispatch searches the root project first)')) }}
  {%- endif -%}
  {{ return(dispatched) }}
{%- endmacro %}

{#- The one message of a refused override. -#}
{% macro override_message(found) -%}
  {{ return("dbt_deid refuses to run with a replaced package or dbt macro or package model: " ~ found ~ ". A project cannot replace the package's gates, publish materialization, models or dispatched macros, nor the dbt macros they run on (docs/overrides.md): remove or rename the macro or model, or contribute the implementation to dbt_deid; nothing was published") }}
{%- endmacro %}

{#- The macro-name prefixes dispatch tries, in order: the adapter, its parent adapters (as dbt's
    adapter plugins declare them: dbt-databricks on dbt-spark, dbt-redshift on dbt-postgres),
    then `default`. -#}
{% macro adapter_prefixes() -%}
  {%- set parents = {'databricks': ['spark'], 'redshift': ['postgres'], 'materialize': ['postgres']} -%}
  {{ return([adapter.type()] + parents.get(adapter.type(), []) + ['default']) }}
{%- endmacro %}
