{#- Several discharge releases in one project (docs/projects.md, "Several releases in one project").

    The default release is var('deid_release') and its nodes are the package's models
    (deid_patterns, deid_published, ...). Every extra release is an entry of var('deid_releases')
    {<name>: <settings>}; its nodes are models of the project named `<name>__<package model>`
    (`clinical__deid_patterns`), written by `python -m dbt_deid add-release <name>`: each SQL
    file is the one line `{{ dbt_deid.release_model() }}`, so its body is the package model's
    (the macros `deid_model_<package model>`, macros/releases/release_models.sql).

    A node knows its release from its own name (a test from the model it tests):
    `current_release()` is `<name>` for `<name>__deid_...`, none for the package's models.
    `release_settings()` (the raw settings; release_config() validates them) and
    `release_ref('deid_generalized')` (-> ref('clinical__deid_generalized') inside release
    `clinical`) go through it, so the chain of one release only ever reads its own tables. dbt
    records refs rendered at parse time, so the computed names are dependencies like any ref. -#}

{#- A release name of var('deid_releases'): an identifier (lower case, digits, single
    underscores, at most 30 characters: node names are `<name>__<package model>` and the
    publish candidate adds a suffix, within PostgreSQL's 63). The Python twin is
    dbt_deid.dbt_side.releases.RELEASE_NAME; both read the one settings definition. -#}
{% macro _release_name_pattern() -%}
  {{ return(dbt_deid.settings_schema().release_name_pattern) }}
{%- endmacro %}

{#- The node being rendered: its name (for a test, the name of the model it tests), or none. -#}
{% macro _current_node_name() -%}
  {%- if model is not mapping -%}{{ return(none) }}{%- endif -%}
  {%- if model.get('resource_type') != 'test' -%}{{ return(model.get('name')) }}{%- endif -%}
  {%- set attached = model.get('attached_node') -%}
  {%- if attached -%}{{ return(attached.split('.')[-1]) }}{%- endif -%}
  {#- while parsing attached_node is not set yet: the tested model from the test's arguments -#}
  {%- set kwargs = (model.get('test_metadata') or {}).get('kwargs') or {} -%}
  {%- set found = modules.re.search("ref\\(\\s*['\"]([^'\"]+)['\"]\\s*\\)", kwargs.get('model', '') | string) -%}
  {{ return(found.group(1) if found else none) }}
{%- endmacro %}

{#- `name` split into (release, package model) when it is an extra release's node
    `<release>__deid_...`, else none. -#}
{% macro _split_release_node(name) -%}
  {%- if name is none or '__deid_' not in name -%}{{ return(none) }}{%- endif -%}
  {%- set release, base = name.split('__', 1) -%}
  {%- if not modules.re.fullmatch(dbt_deid._release_name_pattern(), release) or not base.startswith('deid_') -%}{{ return(none) }}{%- endif -%}
  {{ return([release, base]) }}
{%- endmacro %}

{#- The extra release the current node belongs to (a key of var('deid_releases')), or none for
    the default release (the package's own models, and anything else). -#}
{% macro current_release() -%}
  {%- set split = dbt_deid._split_release_node(dbt_deid._current_node_name()) -%}
  {{ return(split[0] if split is not none else none) }}
{%- endmacro %}

{#- The package model the current node is (its name without the release prefix). -#}
{% macro release_base_name() -%}
  {%- set name = dbt_deid._current_node_name() -%}
  {%- set split = dbt_deid._split_release_node(name) -%}
  {{ return(split[1] if split is not none else name) }}
{%- endmacro %}

{#- The name of package model `base` in the current node's release. -#}
{% macro release_node_name(base) -%}
  {%- set release = dbt_deid.current_release() -%}
  {{ return(base if release is none else release ~ '__' ~ base) }}
{%- endmacro %}

{#- ref() of package model `base` in the current node's release, by package: dbt_deid's node for
    the default release, the root project's `<release>__<base>` for an extra one. A one-argument
    ref() searches the root project first unless the project sets
    `require_ref_searches_node_package_before_root` (review 7, finding 1): a root model of the
    name would have replaced the package's (dbt_deid.overriding_models refuses that name too). -#}
{% macro release_ref(base) -%}
  {%- set release = dbt_deid.current_release() -%}
  {{ return(ref('dbt_deid', base) if release is none else ref(project_name, release ~ '__' ~ base)) }}
{%- endmacro %}

{#- The raw settings of the current node's release: var('deid_release') for the default one,
    var('deid_releases')[name] for an extra one (none when not declared). The key must be an
    identifier and the release's `name` must equal it (fail closed: a name is part of every
    node, report and history row of the release). -#}
{% macro release_settings() -%}
  {%- set release = dbt_deid.current_release() -%}
  {%- if release is none -%}{{ return(var('deid_release', none)) }}{%- endif -%}
  {%- set raw = dbt_deid.extra_releases().get(release) -%}
  {%- if raw is not none -%}{%- do dbt_deid._check_extra_release(release, raw) -%}{%- endif -%}
  {{ return(raw) }}
{%- endmacro %}

{#- True when any release is declared (the default one or an extra one). -#}
{% macro any_release_declared() -%}
  {{ return(var('deid_release', none) is not none or (var('deid_releases', none) or {}) | length > 0) }}
{%- endmacro %}

{#- Every extra release declared is valid and has its nodes (at least its publish model) in the
    project: a release declared without its models would silently publish nothing. Run by
    the on-run-start hook prepare_release_tables. -#}
{% macro check_extra_releases() -%}
  {%- for key, raw in dbt_deid.extra_releases().items() -%}
    {%- do dbt_deid._check_extra_release(key, raw) -%}
    {%- if execute -%}
      {%- set found = [] -%}
      {%- for node in graph.nodes.values() -%}
        {%- if node.resource_type == 'model' and node.name == key ~ '__deid_published' -%}{%- do found.append(node) -%}{%- endif -%}
      {%- endfor -%}
      {%- if found | length == 0 -%}
        {{ exceptions.raise_compiler_error("dbt_deid setting 'deid_releases." ~ key ~ "': the release has no models in this project; write them with `python -m dbt_deid add-release " ~ key ~ " --models-dir models/deid_" ~ key ~ "` (docs/projects.md, \"Several releases in one project\")") }}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
{%- endmacro %}
