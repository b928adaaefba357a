{#- The tables the publish models of several releases append to, created before any node runs:
    the package's `on-run-start` hook (dbt_project.yml; issue 33, item 3: it replaces the model
    deid_release_history_init, one node less per project).

    It checks the extra releases of var('deid_releases') (names, and each has its models:
    check_extra_releases), then creates the release history next to every published table
    (ensure_release_history, with the columns of this package version) and the project's
    per-record store, key and line locks in the working schema of every release
    (ensure_release_stores), so the publish models running at once on several threads only
    ever append to them: two threads never create or alter one of them at once.

    When: dbt 1.10/1.11 run a package's on-run-start hooks in the root project's invocations of
    `dbt run`, `build`, `seed`, `snapshot`, `test` and `retry` (RunTask.before_run, before any
    node, after dbt created the selected models' schemas; the root project's hooks first, then
    each package's in the order of its list: RunTask._hook_keyfunc, whose BiggestName sorts
    first, as a dbt 1.11.16 log shows), never under `compile`, `ls`, `docs generate`, `parse`
    or `clone` (not RunTasks). This hook acts in `run`, `build`
    and `retry` when the invocation selects a model of a release (a node of package dbt_deid or
    an extra release's `<release>__deid_*` model): `dbt run -s deid_published` alone, or any
    `dbt build --select` of a subset, gets the tables before its publish model runs. In a
    `dbt retry` dbt sets no `selected_resources` and flags.WHICH is the retried command's
    (dbt 1.10/1.11, review 13 final L1): retry_invocation() detects it, and the hook then acts
    when the project has any enabled model of a release (it cannot see which nodes are retried).
    Under
    `--empty` it checks the extra releases and creates nothing.

    While dbt parses the project (it renders the hooks then, `execute` false), the hook checks
    the extra releases' names, as the model did: `dbt parse`, `ls` and `compile` fail on a
    release name that is no identifier.

    Fail closed: the work is done while dbt renders the hook (statements run by the macros), so
    a refusal or a database error raised here leaves the invocation before any node, whatever
    the root project's `skip_nodes_if_on_run_start_fails` (an error in a hook's returned SQL
    would not stop the nodes unless that flag is set). The publish step checks again: a missing
    line lock table or row is a refusal (lock_release_line), a missing history is created
    (record_release). The work is committed here (hooks run outside a transaction, on a
    connection of their own), so the nodes' connections see the tables. Returns '' (no SQL). -#}
{% macro prepare_release_tables() -%}
  {{ return(dbt_deid.own(adapter.dispatch('prepare_release_tables', 'dbt_deid'))()) }}
{%- endmacro %}

{% macro default__prepare_release_tables() -%}
  {%- if not dbt_deid.any_release_declared() -%}{{ return('') }}{%- endif -%}
  {#- while dbt parses the project (it renders every hook then, execute false): the extra
      releases' names (check_extra_releases checks their models only when executing), so
      `dbt parse`, `ls` or `compile` fail on a release name that is no identifier -#}
  {%- if not execute -%}{%- do dbt_deid.check_extra_releases() -%}{{ return('') }}{%- endif -%}
  {%- if flags.WHICH not in ['run', 'build', 'retry'] -%}{{ return('') }}{%- endif -%}
  {#- a `dbt retry` selects what failed, but dbt tells no hook what: every release model -#}
  {%- set every = dbt_deid.retry_invocation() -%}
  {%- set selected = selected_resources or [] -%}
  {%- set found = [] -%}
  {%- for node in graph.nodes.values() if (every or node.unique_id in selected) and node.resource_type == 'model' -%}
    {%- if node.package_name == 'dbt_deid' or dbt_deid._split_release_node(node.name) is not none -%}{%- do found.append(node.name) -%}{%- endif -%}
  {%- endfor -%}
  {%- if not found -%}{{ return('') }}{%- endif -%}
  {#- a root-project (or other package's) model or macro named like one of the package's: the
      publish step refuses naming each (assert_no_overrides) and records the refusal; nothing
      is prepared here (the lookups below would stop on the ambiguous name first, before any
      node and without that message or history row) -#}
  {%- if dbt_deid.overrides_found() | length > 0 -%}{{ return('') }}{%- endif -%}
  {%- do dbt_deid.check_extra_releases() -%}
  {%- if flags.EMPTY -%}{{ return('') }}{%- endif -%}
  {#- a transaction on this connection for the statements below (commit needs one open) -#}
  {%- do run_query('select 1 as deid_prepare_release_tables') -%}
  {%- for h in dbt_deid.release_history_relations() -%}{%- do dbt_deid.ensure_release_history(h) -%}{%- endfor -%}
  {%- do dbt_deid.ensure_release_stores() -%}
  {%- do adapter.commit() -%}
  {{ return('') }}
{%- endmacro %}
