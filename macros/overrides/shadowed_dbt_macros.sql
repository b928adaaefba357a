{#- Every macro outside dbt_deid and outside dbt's internal packages (dbt and the adapters'
    packages: dbt_duckdb, dbt_postgres, dbt_spark, ...) that shadows one of dbt's, as
    "<package>.<macro> (<path>) shadows <what>", sorted (docs/overrides.md, "dbt's own macros").

    dbt resolves an unqualified macro name in the node's package first, then in the ROOT
    project, then in dbt's internal packages (dbt/context/macros.py, MacroNamespace), and dbt's
    own macros resolve their calls in the calling node's context. So a root-project `run_query`,
    `statement`, `create_table_as`, `ref` ... replaces dbt's for every call the package's gates,
    publish step and history writer make, and for every call dbt's own macros make on their
    behalf: `dbt.run_query` calls `statement` unqualified, so qualifying the package's calls
    would not be enough. A root macro that returns passing rows for a gate's query published a
    failing release on d89e732. Refused here:

    * a macro an unqualified call reaches (the root project's) named like a macro of dbt's internal namespace (`context['dbt']`) or
      like one of dbt's context members (`context['builtins']`: `ref`, `source`, `return`,
      `exceptions`, `adapter`, ...);
    * a macro of the root project named `<prefix>__<name>`, <prefix> one the adapter's dispatch
      tries, where dbt dispatches <name> (an internal `*__<name>`): found before dbt's own by
      adapter.dispatch; and such a macro of another package when dbt's dispatch of <name>
      resolves to it (a `dispatch:` config for `macro_namespace: dbt` routes there). Another
      package's macro that dbt's dispatch does not reach is not a shadow: dbt_utils defines
      `default__date_spine` and others named like dbt's own, for its own dispatch;

    except the names of `shadow_allowlist`. Uses only `context` and Jinja tests, so that no macro
    a project can shadow runs before the check: a shadowed `dbt`, `builtins` or `dbt_deid`
    namespace is itself reported. -#}
{% macro shadowed_dbt_macros() -%}
  {%- set found = [] -%}
  {%- set internal = context.get('dbt') -%}
  {%- set builtin = context.get('builtins') -%}
  {%- for key in ['dbt', 'builtins', 'dbt_deid'] -%}
    {%- set v = context.get(key) -%}
    {%- if v is not mapping -%}
      {%- set m = v.macro if v is defined and v.macro is defined else none -%}
      {%- do found.append((m.package_name ~ '.' ~ key ~ ' (' ~ m.original_file_path ~ ')' if m is not none else "'" ~ key ~ "'") ~ " shadows dbt's namespace '" ~ key ~ "'") -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if found | length > 0 -%}{{ return(found) }}{%- endif -%}
  {%- set allowed = dbt_deid.shadow_allowlist() -%}
  {%- set prefixes = dbt_deid.adapter_prefixes() -%}
  {%- set internal_packages = [] -%}
  {%- set dispatched = {} -%}
  {%- for name, v in internal.items() -%}
    {%- do internal_packages.append(v.macro.package_name) -%}
    {%- set parts = name.split('__', 1) -%}
    {%- if parts | length == 2 and parts[0] | length > 0 -%}{%- do dispatched.update({parts[1]: v.macro.package_name ~ '.' ~ name}) -%}{%- endif -%}
  {%- endfor -%}
  {%- set internal_packages = internal_packages | unique | list -%}
  {%- set resolved = {} -%}
  {#- every namespace of a project or package that is not internal: the keys of `context` whose
      value maps macro names to that package's macros -#}
  {%- for key in context | sort -%}
    {%- set ns = context[key] if key not in builtin else none -%}
    {%- if key not in internal_packages and key not in builtin and key not in ['dbt', 'dbt_deid', 'builtins', 'context'] and ns is mapping -%}
      {%- for name in ns | sort -%}
        {%- set m = ns[name].macro if ns[name].macro is defined else none -%}
        {%- if m is not none and m.package_name == key and name not in allowed -%}
          {%- set parts = name.split('__', 1) -%}
          {%- set what = none -%}
          {%- set top = context.get(name) -%}
          {%- set unqualified = top is not none and top.macro is defined and top.macro.package_name == key -%}
          {%- if unqualified and name in internal -%}
            {%- set what = internal[name].macro.package_name ~ '.' ~ name -%}
          {%- elif unqualified and name in builtin -%}
            {%- set what = "dbt's context member '" ~ name ~ "'" -%}
          {%- elif parts | length == 2 and parts[0] in prefixes and parts[1] in dispatched
                   and (unqualified or dbt_deid._dispatch_package(builtin, parts[1], resolved) == key) -%}
            {%- set what = "dbt's dispatch of '" ~ parts[1] ~ "' (" ~ dispatched[parts[1]] ~ ")" -%}
          {%- endif -%}
          {%- if what is not none -%}
            {%- do found.append(key ~ '.' ~ name ~ ' (' ~ m.original_file_path ~ ') shadows ' ~ what) -%}
          {%- endif -%}
        {%- endif -%}
      {%- endfor -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(found | unique | sort | list) }}
{%- endmacro %}

{#- The dbt macros a project may replace: where dbt puts a model (its database, schema and
    name). dbt documents overriding them, and what they decide cannot change what the gates
    count: a working model built where the published table is shared is refused by the publish
    step (gate `working_schema`), and two models given one relation fail dbt's parse. Anything
    else named like a dbt macro is refused (an unknown shadow is refused, not trusted). -#}
{% macro shadow_allowlist() -%}
  {%- set names = [] -%}
  {%- for base in ['generate_schema_name', 'generate_alias_name', 'generate_database_name'] -%}
    {%- do names.extend([base, 'default__' ~ base]) -%}
  {%- endfor -%}
  {{ return(names) }}
{%- endmacro %}

{#- The package of the macro dbt's `adapter.dispatch(name, 'dbt')` resolves to (the search order
    of the project's `dispatch:` config for `macro_namespace: dbt`, else the root project and
    dbt's internal packages), through `builtins.adapter` (a root macro named `adapter` cannot
    replace it), memoized in `cache`. -#}
{% macro _dispatch_package(builtin, name, cache) -%}
  {%- if name not in cache -%}
    {%- set m = builtin['adapter'].dispatch(name, 'dbt') -%}
    {%- do cache.update({name: (m.macro.package_name if m.macro is defined else '')}) -%}
  {%- endif -%}
  {{ return(cache[name]) }}
{%- endmacro %}
