{#- What is combined is the source's records, not a release name (issue 32, item 2).

    A recipient who receives two releases of the same records (under two names, or a name that
    differs only in case) links them record by record, whatever they are called. So the line
    a release is combined with is every release over the same source, by its relation
    (dbt_deid.line_source) and record identity (the keyed hash of the record id, one key per
    store), in the line's epoch (the `restart` reason): the store rows written by this release
    name or by any other name whose rows carry the same source relation. A different record id
    column among them is a re-key and is refused by check_line; history and store are checked
    against each other for every name of the line (check_line, the gate combined_releases). -#}

{#- The store rows combined with this release, as a SQL condition (`alias`: the store's). -#}
{% macro combined_lines_condition(cfg, alias='') -%}
  {%- set a = (alias ~ '.') if alias else '' -%}
  {{ return("coalesce(" ~ a ~ "line_epoch, '') = " ~ dbt_deid.literal(dbt_deid.line_epoch())
            ~ " and (" ~ a ~ "release_name = " ~ dbt_deid.literal(cfg.name)
            ~ " or " ~ a ~ "source_relation = " ~ dbt_deid.literal(dbt_deid.line_source(cfg)) ~ ")") }}
{%- endmacro %}

{#- The latest published release of the line, whatever its name: {release_id, name, version}
    (the history's latest row among the releases the store holds for the line), or none. -#}
{% macro line_previous_release(cfg, store) -%}
  {%- set history = dbt_deid.line_history_relation() -%}
  {%- if history is none or adapter.get_relation(history.database, history.schema, history.identifier) is none -%}{{ return(none) }}{%- endif -%}
  {%- set rows = run_query("select release_id, release_name, release_version from " ~ history
        ~ " where status = 'published' and release_id in (select distinct release_id from " ~ store
        ~ " where " ~ dbt_deid.combined_lines_condition(cfg) ~ ") order by recorded_at desc, release_version desc").rows -%}
  {%- if rows | length == 0 -%}{{ return(none) }}{%- endif -%}
  {{ return({'release_id': rows[0][0], 'name': rows[0][1], 'version': rows[0][2] | int}) }}
{%- endmacro %}
