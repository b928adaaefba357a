{#- `dbt clone` of a publish model is refused: the package's `on-run-start` hook
    (dbt_project.yml), before any node runs (review 7, finding 6; docs/overrides.md).

    `dbt clone` runs dbt's own `clone` materialization for every selected node, whatever the
    node's materialization: a publish model (materialized deid_publish: the default release's
    deid_published, an extra release's `<release>__deid_published`, the claims and text
    releases' publish models) would be replaced by a clone or a view of the state's relation,
    without its gates and without a history row. On b31f4c4
    `dbt clone --full-refresh -s deid_published --state <target>` turned the published table
    into a view over itself (the release gone, the history still saying `published`). So a
    `clone` invocation that selects any publish model fails naming it, and nothing is changed;
    the working models may still be cloned (`--exclude config.materialized:deid_publish`).
    Model names only. -#}
{% macro refuse_publish_clone() -%}
  {{ return(dbt_deid.own(adapter.dispatch('refuse_publish_clone', 'dbt_deid'))()) }}
{%- endmacro %}

{% macro default__refuse_publish_clone() -%}
  {%- if not execute or flags.WHICH != 'clone' -%}{{ return('') }}{%- endif -%}
  {%- set selected = selected_resources or [] -%}
  {%- set found = [] -%}
  {%- for node in graph.nodes.values() if node.resource_type == 'model'
          and node.config.get('materialized') == 'deid_publish' and node.unique_id in selected -%}
    {%- do found.append(node.name) -%}
  {%- endfor -%}
  {%- if found -%}
    {{ exceptions.raise_compiler_error("dbt_deid [clone]: nothing was cloned: `dbt clone` would replace the published " ~ found | sort | join(', ') ~ " with a copy of the state's relation, without the gates of its deid_publish materialization and without a history row. Publish with `dbt run` or `dbt build`, or leave the publish models out of the clone (`--exclude config.materialized:deid_publish`); docs/overrides.md") }}
  {%- endif -%}
  {{ return('') }}
{%- endmacro %}
