{#- What a history row says about the release it records (issue 35), read so that it stays true
    whatever the current invocation looks like. -#}

{#- The rows of `history` that are earlier published versions of the table `target_relation`
    under the release name `name`, as a SQL condition. The history sits next to the published
    table (same schema), so a version line is the release name plus the schema and identifier:
    the database (catalog) is not part of it, because renaming a DuckDB file (or moving the
    schema to another catalog) renames the catalog of every relation in it, and the version
    must not restart at 1 then. Rows recorded with another catalog match on their
    `"schema"."identifier"` ending. -#}
{% macro history_version_condition(history, target_relation, name) -%}
  {{ return(adapter.dispatch('history_version_condition', 'dbt_deid')(history, target_relation, name)) }}
{%- endmacro %}

{% macro default__history_version_condition(history, target_relation, name) -%}
  {%- set short = target_relation.include(database=false) | string -%}
  {%- set tail = '.' ~ short -%}
  {{ return("status = 'published' and release_name = " ~ dbt_deid.literal(name)
     ~ " and (published_relation = " ~ dbt_deid.literal(target_relation | string)
     ~ " or published_relation = " ~ dbt_deid.literal(short)
     ~ " or " ~ dbt.right('published_relation', tail | length) ~ " = " ~ dbt_deid.literal(tail) ~ ")") }}
{%- endmacro %}

{#- The limits the checked release was computed with: k, tau and max_suppression from its
    parameters table (deid_release_parameters, built with the release's other models), not the
    current var. A build that only publishes (`dbt build -s deid_published --vars ...`) checks
    and publishes tables computed by an earlier invocation; the history must record the limits
    of those tables. Falls back to the current settings when the table is missing. -#}
{% macro computed_release_limits(cfg) -%}
  {{ return(adapter.dispatch('computed_release_limits', 'dbt_deid')(cfg)) }}
{%- endmacro %}

{% macro default__computed_release_limits(cfg) -%}
  {%- set out = {'k': cfg.k, 'tau': cfg.tau, 'max_suppression': cfg.max_suppression} -%}
  {%- if not execute -%}{{ return(out) }}{%- endif -%}
  {#- found in the graph, not through ref(): the publish model must not depend on it (a ref
      here, at run time, is a dependency dbt did not infer) -#}
  {%- set rel = dbt_deid._graph_relation(dbt_deid.release_node_name('deid_release_parameters')) -%}
  {%- if rel is none or adapter.get_relation(rel.database, rel.schema, rel.identifier) is none -%}{{ return(out) }}{%- endif -%}
  {%- set rows = run_query("select setting, value from " ~ rel ~ " where setting in ('k', 'tau', 'max_suppression')").rows -%}
  {%- for r in rows -%}
    {%- if r[1] is not none and (r[1] | string) not in ['', 'None', 'none'] -%}
      {%- do out.update({r[0]: ((r[1] | float) | int) if r[0] == 'k' else (r[1] | float)}) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(out) }}
{%- endmacro %}
