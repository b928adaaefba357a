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

{#- The limits the gates of this build used: k, tau and max_suppression of this invocation's
    resolved settings (release_config), the settings whose MD5 the history row records
    (settings_md5). A release is published only when the gate table (deid_gate_results) was
    computed for these very settings: the publish step's gate `gate_table` compares the table's
    settings_md5 with this invocation's and refuses otherwise, and k is ceil(1/tau) of them
    (El Emam et al. 2011, k = 1/tau), so a published row's limits are the ones its verdicts
    were computed at. A refused row records the limits it was refused at (the settings of
    settings_json). Not read from the settings rows of the release plan (deid_release_plan,
    kind 'setting'; before 0.3.0 the table deid_release_parameters, which was no ancestor of
    the publish model, so `dbt build -s +deid_published --vars ...` left the previous build's
    limits in it, and the history recorded those): the limits are this invocation's. -#}
{% macro computed_release_limits(cfg) -%}
  {{ return(adapter.dispatch('computed_release_limits', 'dbt_deid')(cfg)) }}
{%- endmacro %}

{% macro default__computed_release_limits(cfg) -%}
  {{ return({'k': cfg.k, 'tau': cfg.tau, 'max_suppression': cfg.max_suppression}) }}
{%- endmacro %}
