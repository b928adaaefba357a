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

    `pre_hooks` and `post_hooks` are the materialization's context lists (dicts with the hook's
    unrendered `sql` and its `transaction` flag). The one hook a publish model may have is the
    package's own `{{ dbt_deid.refuse_publish_clone() }}` (it renders '' outside `dbt clone`).
    Returns [] when that is all, else one failed gate result ('publish_hooks') naming the
    model, each other hook (its setting: `+pre-hook`/`+post-hook`, dbt's
    `before_begin`/`after_commit` forms included, and its SQL as configured) and the way out:
    the materialization then runs no hook and no gate, publishes nothing and writes a
    'refused' history row. Project configuration only, never a value of a record. -#}
{% macro publish_hook_results(pre_hooks, post_hooks) -%}
  {%- set own = '{{ dbt_deid.refuse_publish_clone() }}' -%}
  {%- set found = [] -%}
  {%- for setting, hooks in [('+pre-hook', pre_hooks or []), ('+post-hook', post_hooks or [])] -%}
    {%- for hook in hooks -%}
      {%- set sql = (hook.get('sql') or '') | string -%}
      {%- if sql.split() | join(' ') != own -%}
        {%- set shown = sql.split() | join(' ') -%}
        {%- do found.append(setting ~ (' (outside the transaction)' if hook.get('transaction') == false else '') ~ ' `' ~ (shown[:200] ~ ' ...' if shown | length > 200 else shown) ~ '`') -%}
      {%- endif -%}
    {%- endfor -%}
  {%- endfor -%}
  {%- if found | length == 0 -%}{{ return([]) }}{%- endif -%}
  {{ return([{'gate': 'publish_hooks', 'passed': false, 'failures': found | length, 'figure': found | length, 'limit': 0,
    'message': "model " ~ this.identifier ~ " has " ~ found | length ~ " hook(s) dbt_deid does not set: " ~ found | join('; ')
      ~ ". A hook of a publish model runs inside the publish step (a pre-hook before the candidate is written, a post-hook after the gates and the history row, in the same transaction), so it could change what is published after every gate passed. Remove it from the model's config: the `+pre-hook`/`+post-hook` of `models: dbt_deid: ... " ~ this.identifier ~ "`, a project-wide `models: +pre-hook`/`+post-hook` (dbt adds it to the package's models too), or the release's YAML/config(); a hook that must run after a release goes on another model, or in `on-run-end` (docs/overrides.md, \"Hooks on the publish models\")"}]) }}
{%- endmacro %}
