{#- The working schema is never the published one (brief: "working tables holding original
    values never sit where the published mart is shared"; docs/projects.md, "Where tables go").

    The working models of a release hold original values: the input snapshot deid_input, the
    generalized and suppressed records (`<qi>__generalized`, `<qi>__original`), the hierarchy
    and pattern tables (original categories, small ones included), the suppression map, the
    record risk, the claims and text releases' inputs, preprocessed and generalized tables and
    documents/tokens, and, next to deid_suppressed, the per-record store deid_release_records
    and its key deid_history_key (not nodes: macros/gates/combined_releases.sql). The package
    builds them in the schema of the var `deid_work_schema` (each working model's YAML config) and only the publish models in the target
    schema; a root project can undo that (a `generate_schema_name` that ignores custom schemas,
    a project-level `+schema` on the package, a `--vars` setting), and the grant that shares
    the published mart then shares the originals too.

    So the publish step checks, for the model being published, every working model of every
    release (the package's models and the extra releases' `<release>__deid_*` models, any
    materialization but deid_publish and ephemeral) as the graph resolves it in this
    invocation: one whose database and schema are the published table's fails the check, and
    so does a table of a working model's name found in the published schema (left by an
    earlier build with such a layout). Schemas are compared case-insensitively, and a side
    without a database (Spark, where the schema is the database) is compared by schema alone.

    A working model with a non-empty `grants` config or a pre/post-hook (a project-wide
    `models: +grants` reaches the package's models) fails the check too, named with its
    settings (dbt_deid.working_model_sharing).

    Returns [] when the layout is safe, else one failed gate result ('working_schema') that the
    publish materialization adds to the release's gates: the candidate is dropped, nothing is
    published and a 'refused' history row names it. Model names only, never a value. -#}
{% macro working_schema_results(target_relation) -%}
  {%- if not execute -%}{{ return([]) }}{%- endif -%}
  {%- set here_db = (target_relation.database or '') | lower -%}
  {%- set here_schema = (target_relation.schema or '') | lower -%}
  {%- set built_here = [] -%}
  {%- set left_here = [] -%}
  {%- for node in dbt_deid._working_model_nodes() -%}
    {%- set name = node.alias or node.name -%}
    {%- if dbt_deid._node_in_schema(node, here_db, here_schema) -%}
      {%- do built_here.append(node.name) -%}
    {%- elif adapter.get_relation(target_relation.database, target_relation.schema, name) is not none -%}
      {%- do left_here.append(name) -%}
    {%- endif -%}
  {%- endfor -%}
  {#- tables that are not nodes: the project's per-record store, its key and the line locks
      (next to deid_suppressed), and an extra release's own store and key of before one store
      per project (names only; found through the catalog, never read) -#}
  {%- set prefixes = [''] -%}
  {%- for node in graph.nodes.values() if node.resource_type == 'model' -%}
    {%- set split = dbt_deid._split_release_node(node.name) -%}
    {%- if split is not none and (split[0] ~ '__') not in prefixes -%}{%- do prefixes.append(split[0] ~ '__') -%}{%- endif -%}
  {%- endfor -%}
  {%- for prefix in prefixes -%}
    {%- for table in (['deid_release_records', 'deid_history_key'] + (['deid_line_locks', 'deid_released_hierarchies'] if prefix == '' else [])) -%}
      {%- set name = prefix ~ table -%}
      {%- if name not in left_here and adapter.get_relation(target_relation.database, target_relation.schema, name) is not none -%}
        {%- do left_here.append(name) -%}
      {%- endif -%}
    {%- endfor -%}
  {%- endfor -%}
  {#- grants or hooks on any working model (macros/publish/working_model_sharing.sql) -#}
  {%- set sharing = dbt_deid.working_model_sharing(dbt_deid._working_model_nodes()) -%}
  {%- if built_here | length == 0 and left_here | length == 0 and not sharing -%}{{ return([]) }}{%- endif -%}
  {%- set built_here = dbt_deid._record_level_first(built_here) -%}
  {%- set left_here = left_here | sort -%}
  {%- set stores = [] -%}
  {%- for name in built_here if name.endswith('deid_suppressed') -%}
    {%- do stores.append(name[:-('deid_suppressed' | length)] ~ 'deid_release_records') -%}
  {%- endfor -%}
  {%- set where = (target_relation.database ~ '.' if target_relation.database else '') ~ target_relation.schema -%}
  {%- set parts = [] -%}
  {%- if built_here -%}
    {%- do parts.append(built_here | length ~ " working model(s) are built in " ~ where ~ ", the schema of the published " ~ target_relation.identifier ~ ": " ~ dbt_deid._first_names(built_here)
        ~ (" (and the per-record store " ~ stores | join(', ') ~ " next to deid_suppressed)" if stores else "")) -%}
  {%- endif -%}
  {%- if left_here -%}
    {%- do parts.append(left_here | length ~ " table(s) of working models or of the per-record store are in " ~ where ~ " (left by an earlier build in that layout, or created next to the working models): " ~ dbt_deid._first_names(left_here) ~ "; drop them") -%}
  {%- endif -%}
  {%- set messages = [parts | join('; ') ~ ". " ~ dbt_deid._working_schema_fix()] if parts else [] -%}
  {%- if sharing -%}{%- do messages.append(dbt_deid.working_model_sharing_message(sharing)) -%}{%- endif -%}
  {{ return([{'gate': 'working_schema', 'passed': false, 'failures': built_here | length + left_here | length + sharing | length,
      'message': messages | join(' ')}]) }}
{%- endmacro %}

{#- The fix both working-schema checks name (this one and check_working_schema_layout). -#}
{% macro _working_schema_fix() -%}
  {{ return("Working tables hold original values, so they never sit where the published mart is shared:"
        ~ " build them in their own schema (the var `deid_work_schema` that every working model reads, <target schema>_deid_work; do not set `+schema` on the package's working models,"
        ~ " and keep custom schemas in a project `generate_schema_name` macro, as dbt's default does); docs/projects.md, \"Where tables go\"") }}
{%- endmacro %}

{#- The working models of every release in this invocation's graph: the package's models and
    the extra releases' `<release>__deid_*` models, any materialization but ephemeral, the
    publish models excepted (dbt_deid.is_publish_node: also when a project overrode their
    materialization) (nodes, with the database and schema the project resolves for them). -#}
{% macro _working_model_nodes() -%}
  {%- set out = [] -%}
  {%- for node in graph.nodes.values() if node.resource_type == 'model' -%}
    {%- if (node.package_name == 'dbt_deid' or dbt_deid._split_release_node(node.name) is not none)
          and node.config.get('materialized') != 'ephemeral' and not dbt_deid.is_publish_node(node) -%}
      {%- do out.append(node) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(out) }}
{%- endmacro %}

{#- Whether `node` resolves to the database `db` and schema `schema` (both lower case):
    case-insensitive, and a side without a database (Spark: the schema is the database) is
    compared by schema alone. -#}
{% macro _node_in_schema(node, db, schema) -%}
  {%- set node_db = (node.database or '') | lower -%}
  {{ return((node.schema or '') | lower == schema and (node_db == db or node_db == '' or db == '')) }}
{%- endmacro %}

{#- Model names sorted, the record-level tables first (a message shows up to ten names). -#}
{% macro _record_level_first(names) -%}
  {%- set record_level = ['deid_input', 'deid_suppressed', 'deid_generalized', 'deid_sample_file',
      'deid_claims_input_patients', 'deid_claims_input_claims', 'deid_claims_patients_preprocessed',
      'deid_claims_generalized_patients', 'deid_claims_generalized_claims', 'deid_text_documents', 'deid_text_tokens'] -%}
  {%- set ordered = [] -%}
  {%- for name in names | sort -%}
    {%- set base = (dbt_deid._split_release_node(name) or [none, name])[1] -%}
    {%- do ordered.append(((record_level.index(base) if base in record_level else record_level | length), name)) -%}
  {%- endfor -%}
  {{ return(ordered | sort | map(attribute=1) | list) }}
{%- endmacro %}

{#- At most ten names, then how many more. -#}
{% macro _first_names(names) -%}
  {{ return(names[:10] | join(', ') ~ (" and " ~ (names | length - 10) ~ " more" if names | length > 10 else "")) }}
{%- endmacro %}
