{#- `dbt clone` of a publish model is refused: the publish models' `pre_hook` (review 7,
    finding 6; docs/overrides.md, "dbt clone").

    `dbt clone` runs dbt's own `clone` materialization for every selected node, whatever the
    node's materialization: a publish model (materialized deid_publish: the default release's
    deid_published, an extra release's `<release>__deid_published`, the claims and text
    releases' publish models) would be replaced by a clone or a view of the state's relation,
    without its gates and without a history row. On b31f4c4
    `dbt clone --full-refresh -s deid_published --state <target>` turned the published table
    into a view over itself (the release gone, the history still saying `published`).

    dbt's clone task runs no on-run-start hook (dbt-core 1.11, CloneTask is a plain
    GraphRunnableTask) and renders no model SQL, and a package cannot replace the built-in
    `clone` materialization (dbt's `require_explicit_package_overrides_for_builtin_materializations`).
    What clone does run is the model's `pre_hook` where it builds a view (the adapters that
    cannot clone a table: DuckDB, PostgreSQL, ...: `materialization_view_*` runs the hooks), so
    each publish model sets this pre-hook: under `dbt clone` it fails the node naming it, before
    the view is created; under every other command it is empty (the deid_publish
    materialization runs it too). Where the warehouse clones a table itself (can_clone_table():
    dbt-spark's shallow clone, Snowflake, BigQuery) dbt runs no hook: see docs/overrides.md. -#}
{% macro refuse_publish_clone() -%}
  {%- if not execute or flags.WHICH != 'clone' -%}{{ return('') }}{%- endif -%}
  {{ exceptions.raise_compiler_error("dbt_deid [clone]: nothing was cloned: `dbt clone` would replace the published " ~ this.identifier ~ " with a copy of the state's relation, without the gates of its deid_publish materialization and without a history row. Publish with `dbt run` or `dbt build`, or leave the publish models out of the clone (`--exclude config.materialized:deid_publish`); docs/overrides.md") }}
{%- endmacro %}
