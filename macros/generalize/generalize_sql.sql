{#- Record-level generalization: the record id and, for every QI, the value at its released
    level (`<qi>`), both as strings, and the original value (`<qi>__original`) once per source
    column: QIs released from one source column (seed 000's diagnosis at several hierarchy
    levels, El Emam et al. 2011, Table 4) have the same original values, kept as the
    `__original` column of the first of them (original_value_sources), not once per QI (at 24
    million records each duplicate was a text column written twice, issue 18). A NULL source
    value is a missing value and becomes the release's missing label at every level, so it stays
    distinguishable from a suppressed cell (NULL) in the published table. `levels` (QI -> level)
    overrides the released levels; by default each QI is at its configured `level`, or with
    `generalization.search: ola` at the level OLA chose (dbt_deid.released_levels()). -#}
{% macro generalize_sql(cfg, hierarchy_relation, levels=none) -%}
  {{ return(dbt_deid.own(adapter.dispatch('generalize_sql', 'dbt_deid'))(cfg, hierarchy_relation, levels)) }}
{%- endmacro %}

{% macro default__generalize_sql(cfg, hierarchy_relation, levels=none) -%}
  {%- set levels = levels if levels is not none else dbt_deid.released_levels() -%}
  {%- set src = dbt_deid.protected_input(cfg) -%}
  {%- set miss = dbt_deid.literal(cfg.missing_label) -%}
  {%- set s = dbt.type_string() -%}
  {%- set sources = dbt_deid.original_value_sources(cfg) -%}
  select
    src.{{ dbt_deid.ident(cfg.record_id) }} as {{ dbt_deid.ident(cfg.record_id) }}
    {%- for q in cfg.qis %}
    {%- set col = dbt_deid.ident(q.column) %}
    , case when src.{{ col }} is null then {{ miss }} else h{{ loop.index }}.generalized_value end as {{ dbt_deid.ident(q.name) }}
    {%- if sources[q.name] == q.name %}
    , case when src.{{ col }} is null then {{ miss }} else cast(src.{{ col }} as {{ s }}) end as {{ dbt_deid.ident(q.name ~ '__original') }}
    {%- endif %}
    {%- endfor %}
  from {{ src }} as src
  {%- for q in cfg.qis %}
  left join (
    select original_value, generalized_value from {{ hierarchy_relation }}
    where qi_name = {{ dbt_deid.literal(q.name) }} and level = {{ levels.get(q.name, q.level) }}
  ) as h{{ loop.index }}
    on h{{ loop.index }}.original_value = cast(src.{{ dbt_deid.ident(q.column) }} as {{ s }})
  {%- endfor %}
{%- endmacro %}

{#- PostgreSQL plans the joins on the hierarchy from its statistics, and a table dbt has just
    created has none: the planner then expects one row per level and nests loops over it
    (quadratic: 62 s for 20,000 records, hours at the paper's 2.4 million). ANALYZE it first
    (when running, not when compiling for docs or ls). -#}
{% macro postgres__generalize_sql(cfg, hierarchy_relation, levels=none) -%}
  {%- if execute and flags.WHICH in ['run', 'build'] -%}
    {%- do run_query("analyze " ~ hierarchy_relation) -%}
  {%- endif -%}
  {{ return(dbt_deid.default__generalize_sql(cfg, hierarchy_relation, levels)) }}
{%- endmacro %}

{#- Spark (issue 37): the default form with a BROADCAST hint on every hierarchy slice (one QI at
    one level: as many rows as the column has distinct values). Spark cannot size a slice of
    deid_hierarchy before running it, so without the hint it shuffles the records once per
    QI for a sort-merge join (ten shuffles of 2.4 million records: deid_generalized took 15x
    DuckDB's time); with it each slice is sent to every executor and the records are read
    once. A join hint changes the plan, not the rows. -#}
{% macro spark__generalize_sql(cfg, hierarchy_relation, levels=none) -%}
  {%- set body = dbt_deid.default__generalize_sql(cfg, hierarchy_relation, levels) | trim -%}
  {%- set slices = [] -%}
  {%- for q in cfg.qis -%}{%- do slices.append('h' ~ loop.index) -%}{%- endfor -%}
  {%- if not body.startswith('select') or slices | length == 0 -%}{{ return(body) }}{%- endif -%}
  {{ return('select /*+ BROADCAST(' ~ slices | join(', ') ~ ') */' ~ body[6:]) }}
{%- endmacro %}
