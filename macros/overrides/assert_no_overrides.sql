{#- Fail the build when a macro outside dbt_deid would replace one of the package's (issue 32,
    item 3; docs/overrides.md):

    * a dispatched macro: a macro of the root project, or of another package, named
      `<prefix>__<name>` where <prefix> is one the adapter's dispatch tries (the adapter, its
      parents, `default`) and dbt_deid dispatches <name> (has some `*__<name>`). Each dispatch
      of the package fails on such a macro when it is reached (dbt_deid.own); this check names
      every one at once, before anything is written;
    * dbt's own macros (`run_query`, `statement`, `create_table_as`, `ref`, a dispatch target
      such as `duckdb__get_columns_in_relation`, ...), which the gates' queries and dbt's
      materializations call unqualified: dbt_deid.shadowed_dbt_macros, checked first;
    * the publish materialization: `{% materialization deid_publish %}` anywhere but dbt_deid.
      dbt picks the root project's (Manifest.find_materialization_macro_by_name: locality Root
      beats Imported), and no setting can stop it, so the publish models call this check while
      dbt renders their SQL, which dbt does for the node before it calls the materialization:
      a replaced materialization never runs;
    * a model (seed, snapshot) of the root project or another package named like one of the
      package's release nodes, which a ref() by name could resolve to:
      dbt_deid.overriding_models.

    Runs at execution time only (compile, run, build, test). `where` names the node for the
    message. -#}
{% macro assert_no_overrides(where) -%}
  {%- if not execute -%}{{ return(none) }}{%- endif -%}
  {%- set found = dbt_deid.overrides_found() -%}
  {%- if found | length > 0 -%}
    {{ exceptions.raise_compiler_error(where ~ ": " ~ dbt_deid.override_message(found | join('; '))) }}
  {%- endif -%}
{%- endmacro %}

{#- Every override assert_no_overrides refuses, described (the shadowed dbt macros first), or
    one line saying the check could not run; empty when there is none. The publish step refuses
    on it, the hook prepare_release_tables leaves such a release to that refusal. -#}
{% macro overrides_found() -%}
  {%- set found = dbt_deid.shadowed_dbt_macros() -%}
  {%- if found is string or found is not iterable -%}
    {{ return(["the override check could not run (a macro shadows dbt's 'return' or the package's macros)"]) }}
  {%- endif -%}
  {{ return(found + dbt_deid.overriding_macros() + dbt_deid.overriding_models()) }}
{%- endmacro %}

{#- Human-readable descriptions of every overriding macro found (see assert_no_overrides), in a
    stable order: '<package>.<macro> (<path>) overrides dbt_deid.<macro>'. -#}
{% macro overriding_macros() -%}
  {%- set own = context['dbt_deid'] -%}
  {%- set prefixes = dbt_deid.adapter_prefixes() -%}
  {%- set bases = {} -%}
  {%- for name in own -%}
    {%- set parts = name.split('__', 1) -%}
    {%- if parts | length == 2 and parts[0] in prefixes -%}{%- do bases.update({parts[1]: name}) -%}{%- endif -%}
  {%- endfor -%}
  {%- set watched = {} -%}
  {%- for prefix in prefixes -%}
    {%- do watched.update({'materialization_deid_publish_' ~ prefix: 'materialization_deid_publish_' ~ prefix}) -%}
  {%- endfor -%}
  {%- set found = [] -%}
  {%- for package in dbt_deid._macro_packages() if package != 'dbt_deid' -%}
    {%- set ns = context.get(package) -%}
    {%- if ns is mapping -%}
      {%- for name in ns | sort -%}
        {%- set parts = name.split('__', 1) -%}
        {%- set target = watched.get(name) or (bases.get(parts[1]) if parts | length == 2 and parts[0] in prefixes else none) -%}
        {%- set m = ns[name].macro if target else none -%}
        {%- if m is not none and m.package_name is defined and m.package_name != 'dbt_deid' -%}
          {%- set what = ('{% materialization deid_publish %}' if name.startswith('materialization_') else 'dbt_deid.' ~ target) -%}
          {%- do found.append(m.package_name ~ '.' ~ name ~ ' (' ~ m.original_file_path ~ ') overrides ' ~ what) -%}
        {%- endif -%}
      {%- endfor -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(found | unique | list) }}
{%- endmacro %}

{#- The names of the projects whose macros the context holds (the root project, the packages
    of the project's nodes), sorted: each is a key of `context` whose value is that project's
    macros. -#}
{% macro _macro_packages() -%}
  {%- set names = [project_name] -%}
  {%- for node in graph.nodes.values() -%}{%- do names.append(node.package_name) -%}{%- endfor -%}
  {{ return(names | unique | sort) }}
{%- endmacro %}
