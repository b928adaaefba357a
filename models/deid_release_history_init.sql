{{ config(enabled=dbt_deid.any_release_declared(), materialized='view', tags=['deid_publish']) }}
{#- Runs before every publish model (they depend on it): checks the extra releases of
    var('deid_releases') (names, and each has its models), and creates the release history
    next to each published table, so publish models running at once on several threads only
    ever append to it (macros/releases/release_history.sql); and the project's per-record
    store and key in the working schema, with the columns of every release (one store for all
    the project's releases: macros/gates/combined_releases.sql, ensure_release_stores), so they
    only ever append to it too. One row per history table. Under
    `--empty` and the commands that only compile or list, nothing is created. -#}
{%- do dbt_deid.check_extra_releases() -%}
{%- set histories = dbt_deid.release_history_relations() if execute else [] -%}
{%- if dbt_deid.run_data_checks() and not flags.EMPTY -%}
  {%- for h in histories -%}{%- do dbt_deid.ensure_release_history(h) -%}{%- endfor -%}
  {%- do dbt_deid.ensure_release_stores() -%}
{%- endif -%}
{%- if histories | length == 0 %}
select cast(null as {{ dbt.type_string() }}) as history_relation where 1 = 0
{%- else %}
{%- for h in histories %}
select {{ dbt_deid.literal(h | string) }} as history_relation
{%- if not loop.last %} union all{% endif %}
{%- endfor %}
{%- endif %}
