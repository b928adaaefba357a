{#- A publish model runs no hook of the project's (review 8, finding 1; docs/overrides.md,
    "Hooks on the publish models").

    dbt runs a model's `pre_hook` and `post_hook` inside its materialization, which for a
    publish model (materialized deid_publish: deid_published, an extra release's
    `<release>__deid_published`, the claims and text publish models) is the publish step: a
    post-hook ran after the gates had passed, after the swap and the 'published' history row,
    in the same transaction, so `+post-hook: "delete from {{ this }} where ..."` on
    deid_published (or a project-wide `models: +post-hook`, which dbt adds to every model,
    the package's included) changed what was published and was committed with the row that
    said every gate passed (on 5dda012: 1,304 of 4,000 records deleted, smallest consistent
    set 2 for k = 5, the history saying 4,000 rows). A pre-hook runs before the candidate is
    written and may change what the gates read. Hooks add up in dbt's config (the package
    cannot reset them), so the publish materialization checks them before it runs any.

    A `+sql_header` (review 8 final, R8) is the same: dbt writes it before the candidate's
    `create table ... as` (create_table_as), inside the publish step, before the gates read the
    candidate, and it cascades from a project's `models:` like a hook. The package sets none on
    a publish model, so any is refused, and the materialization then does not write the
    candidate at all (nothing of the header runs).

    `pre_hooks` and `post_hooks` are the materialization's context lists (dicts with the hook's
    unrendered `sql` and its `transaction` flag); `sql_header` is config.get('sql_header'). The
    one hook a publish model may have is the package's own
    `{{ dbt_deid.refuse_publish_clone() }}` (it renders '' outside `dbt clone`). Returns []
    when that is all, else one failed gate result ('publish_hooks') naming the model, each
    other hook by its setting (`+pre-hook`/`+post-hook`, dbt's `before_begin`/`after_commit`
    forms included, or `+sql_header`), its position in that setting's list and a short hash of
    its text (dbt_deid.configured_sql_label), and the way out: the materialization then runs no
    hook and no gate, publishes nothing and writes a 'refused' history row. Never the hook's
    SQL (review 8 final, R7): a hook filtering on a quasi-identifier can hold a value of a
    small class, and the message goes into the history, the log and the dbt output; the user
    finds the hook in the config by its setting and position. -#}
{% macro publish_hook_results(pre_hooks, post_hooks, sql_header=none) -%}
  {%- set own = '{{ dbt_deid.refuse_publish_clone() }}' -%}
  {%- set found = [] -%}
  {%- for setting, hooks in [('+pre-hook', pre_hooks or []), ('+post-hook', post_hooks or [])] -%}
    {%- for hook in hooks -%}
      {%- set sql = (hook.get('sql') or '') | string -%}
      {%- if sql.split() | join(' ') != own -%}
        {%- do found.append(dbt_deid.configured_sql_label(setting ~ ' #' ~ loop.index, sql) ~ (' (outside the transaction)' if hook.get('transaction') == false else '')) -%}
      {%- endif -%}
    {%- endfor -%}
  {%- endfor -%}
  {%- if sql_header is not none and (sql_header | string).split() | length > 0 -%}
    {%- do found.append(dbt_deid.configured_sql_label('+sql_header', sql_header | string)) -%}
  {%- endif -%}
  {%- if found | length == 0 -%}{{ return([]) }}{%- endif -%}
  {{ return([{'gate': 'publish_hooks', 'passed': false, 'failures': found | length, 'figure': found | length, 'limit': 0,
    'message': "model " ~ this.identifier ~ " has " ~ found | length ~ " hook(s) dbt_deid does not set: " ~ found | join('; ')
      ~ ". A hook of a publish model runs inside the publish step (a pre-hook or a `+sql_header` before the candidate is written, a post-hook after the gates and the history row, in the same transaction), so it could change what is published after every gate passed. Remove it from the model's config: the `+pre-hook`/`+post-hook`/`+sql_header` of `models: dbt_deid: ... " ~ this.identifier ~ "`, a project-wide `models: +pre-hook`/`+post-hook`/`+sql_header` (dbt adds it to the package's models too), or the release's YAML/config(); a hook that must run after a release goes on another model, or in `on-run-end` (docs/overrides.md, \"Hooks on the publish models\")"}]) }}
{%- endmacro %}

{#- A configured hook named without its SQL: its setting and position (e.g. '+post-hook #2')
    and the first 8 hex digits of the md5 of its text as configured, e.g.
    '+post-hook #2 (md5 1a2b3c4d)'. -#}
{% macro configured_sql_label(setting, sql) -%}
  {{ return(setting ~ ' (md5 ' ~ local_md5(sql)[:8] ~ ')') }}
{%- endmacro %}
