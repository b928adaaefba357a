{#- The release history table (deid_release_history, next to each published table) exists with
    every column of this package version. The publish materialization appends one row per
    release attempt (dbt_deid.record_release); with several releases in one `dbt build` their
    publish models run at once on different threads, so the table is created (and older tables
    given the columns added since) by the package's on-run-start hook prepare_release_tables,
    before any node runs: two threads never create or alter it at once.
    (Appends from two threads do not conflict.) record_release still calls this, for a publish
    model run alone (`dbt run -s deid_published`), when nothing else writes. -#}
{% macro ensure_release_history(history) -%}
  {{ return(dbt_deid.own(adapter.dispatch('ensure_release_history', 'dbt_deid'))(history)) }}
{%- endmacro %}

{% macro default__ensure_release_history(history) -%}
  {%- set columns = dbt_deid.release_history_columns() -%}
  {%- set found = adapter.get_relation(history.database, history.schema, history.identifier) -%}
  {%- if found is none -%}
    {%- do dbt_deid.create_schema_if_missing(history) -%}
    {#- `if not exists`: a table created earlier in this run (prepare_release_tables) is
        not in dbt's relation cache -#}
    {% call statement('deid_history_create') -%}
      create table if not exists {{ history }} (
        {%- for name, type in columns %}
        {{ name }} {{ type }}{{ ',' if not loop.last }}
        {%- endfor %}
      )
    {%- endcall %}
    {#- later nodes of this invocation find it: a raw `create` is not in dbt's relation cache,
        and a gate that does not find the history finds no earlier release to combine -#}
    {%- do adapter.cache_added(history.incorporate(type='table')) -%}
  {%- else -%}
    {%- set have = adapter.get_columns_in_relation(found) | map(attribute='name') | map('lower') | list -%}
    {%- for name, type in columns -%}
      {%- if name not in have -%}
        {% call statement('deid_history_add_' ~ name) -%}alter table {{ history }} add column {{ name }} {{ type }}{%- endcall %}
      {%- endif -%}
    {%- endfor -%}
  {%- endif -%}
{%- endmacro %}

{#- The history relation of every publish model in the graph (the discharge releases': one per
    schema they publish into), deduplicated; a publish model whose materialization a project
    overrode included (dbt_deid.is_publish_node), so its refused attempt has a history. -#}
{% macro release_history_relations() -%}
  {%- set out = [] -%}
  {%- set seen = [] -%}
  {%- for node in graph.nodes.values() -%}
    {%- if dbt_deid.is_publish_node(node) and node.config.get('deid_checks') == 'release' -%}
      {%- set h = api.Relation.create(database=node.database, schema=node.schema, identifier='deid_release_history', type='table') -%}
      {%- if (h | string) not in seen -%}{%- do seen.append(h | string) -%}{%- do out.append(h) -%}{%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(out) }}
{%- endmacro %}
