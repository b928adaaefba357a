{#- The working-schema check before anything is built: the package's `on-run-start` hook
    (dbt_project.yml; dbt runs a package's on-run-start hooks in the root project's
    invocations, before any node).

    The publish step's check (working_schema_results) refuses a release whose working models
    resolve to the published table's schema, but it runs after they were built: by then the
    input snapshot, the suppressed records with their `<qi>__original` columns and the pattern
    tables sat in the schema the mart is shared from (a schema-level grant shares them from then
    on). This check compares the graph's resolved schemas first: for every publish model of the
    invocation's graph (is_publish_node, whatever its materialization was overridden to: every
    release, the extra releases' and the claims and text ones included), the working models
    selected in this invocation (`selected_resources`) that resolve to its database and schema (working_schema_results'
    rules: _working_model_nodes, _node_in_schema). Any found, it fails the invocation naming
    them, the schema and the fix, before any node runs. Only the commands that build models
    (run, build, retry, clone) are checked (in a `dbt retry`, which dbt runs without
    `selected_resources` and with the retried command's flags.WHICH, every working model:
    retry_invocation; review 13 final, L1); a selection without a working model in the
    published schema (`dbt run -s deid_published`) is left to the publish step's check, which
    also finds tables an earlier build left there. A selected working model with grants or a
    pre/post-hook (a project-wide `models: +grants`: dbt_deid.working_model_sharing) fails it
    too. So does a working schema that already holds a deid_release_history table (review 20,
    F-D: the var `deid_work_schema` pointed at another line's published schema built the
    input snapshot and the suppressed records next to that published mart). Model names only,
    never a value. -#}
{% macro check_working_schema_layout() -%}
  {{ return(dbt_deid.own(adapter.dispatch('check_working_schema_layout', 'dbt_deid'))()) }}
{%- endmacro %}

{% macro default__check_working_schema_layout() -%}
  {%- if not execute or flags.WHICH not in ['run', 'build', 'retry', 'clone'] -%}{{ return('') }}{%- endif -%}
  {#- a `dbt retry` selects what failed, but dbt tells no hook what: every working model -#}
  {%- set every = dbt_deid.retry_invocation() -%}
  {%- set selected = selected_resources or [] -%}
  {%- set working = [] -%}
  {%- for node in dbt_deid._working_model_nodes() if every or node.unique_id in selected -%}{%- do working.append(node) -%}{%- endfor -%}
  {%- set seen = [] -%}
  {%- set problems = [] -%}
  {%- for pub in graph.nodes.values() if dbt_deid.is_publish_node(pub) -%}
    {%- set db = (pub.database or '') | lower -%}
    {%- set schema = (pub.schema or '') | lower -%}
    {%- if (db, schema) not in seen -%}
      {%- do seen.append((db, schema)) -%}
      {%- set here = [] -%}
      {%- for node in working if dbt_deid._node_in_schema(node, db, schema) -%}{%- do here.append(node.name) -%}{%- endfor -%}
      {%- if here -%}
        {%- set where = (pub.database ~ '.' if pub.database else '') ~ pub.schema -%}
        {%- do problems.append(here | length ~ " working model(s) would be built in " ~ where ~ ", the schema of the published " ~ pub.name ~ ": " ~ dbt_deid._first_names(dbt_deid._record_level_first(here))) -%}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {#- review 20, F-D: a working schema that already holds a release history is some line's
      published schema (the history sits next to a published table), whether or not this
      invocation's graph publishes there -#}
  {%- set schemas = [] -%}
  {%- for node in working -%}
    {%- set key = ((node.database or '') | lower, (node.schema or '') | lower) -%}
    {%- if key not in seen and key not in schemas | map(attribute='key') | list -%}
      {%- do schemas.append({'key': key, 'node': node, 'names': []}) -%}
    {%- endif -%}
    {%- for s in schemas if s.key == key -%}{%- do s.names.append(node.name) -%}{%- endfor -%}
  {%- endfor -%}
  {%- for s in schemas -%}
    {%- if adapter.get_relation(s.node.database, s.node.schema, 'deid_release_history') is not none -%}
      {%- set where = (s.node.database ~ '.' if s.node.database else '') ~ s.node.schema -%}
      {%- do problems.append(s.names | length ~ " working model(s) would be built in " ~ where ~ ", which holds a release history (deid_release_history: the schema of a published mart): " ~ dbt_deid._first_names(dbt_deid._record_level_first(s.names))) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if problems -%}
    {{ exceptions.raise_compiler_error("dbt_deid [working_schema]: nothing was built: " ~ problems | join('; ') ~ ". " ~ dbt_deid._working_schema_fix()) }}
  {%- endif -%}
  {#- a selected working model with grants or hooks (macros/publish/working_model_sharing.sql) -#}
  {%- set sharing = dbt_deid.working_model_sharing(working) -%}
  {%- if sharing -%}
    {{ exceptions.raise_compiler_error("dbt_deid [working_schema]: nothing was built: " ~ dbt_deid.working_model_sharing_message(sharing)) }}
  {%- endif -%}
  {{ return('') }}
{%- endmacro %}
