{#- The hierarchy mapping each published version of a line used (review 8, finding 2;
    docs/combined-lines.md, "An edited hierarchy").

    The combined view compares a record's true values at the released level between versions
    (coalesce(`<qi>__generalized`, `<qi>`) in the per-record store against the candidate). When
    the hierarchy seed is edited between versions (same name, same level: no setting changed)
    and a value moves to another group, the record's original value did not change but its
    true value at the released level did; the combined view then made two states of the record,
    each counted as a record of its own, while a recipient holding both versions intersects the
    two groups (on 5dda012 three nightly versions with crossing regroupings of
    diagnosis_hierarchy published, the gate saying 19, the smallest consistent set being 4 for
    k = 5).

    So each published version keeps, in the store deid_released_hierarchies (in the working
    schema, next to deid_release_records: it holds original values, as the working tables do),
    the mapping it released for every quasi-identifier generalized through a lookup hierarchy
    (`hierarchy:` setting, at a level above 0): one row per (qi_name, level, original_value,
    generalized_value), the distinct pairs of the checked release (deid_suppressed, bound to the
    gate table by its fingerprint), written by the publish materialization in the publish
    transaction, just before the history row. The history row counts them (column hierarchy_values), so a store that lost
    rows is seen (dbt_deid.hierarchy_moves). Rule-based QIs (interval, prefix, date) are not
    stored: the rule is in the settings, which the gate compares. Never read into a message:
    the gate prints counts only. -#}
{% macro released_hierarchies_relation(truth) -%}
  {{ return(api.Relation.create(database=truth.database, schema=truth.schema, identifier='deid_released_hierarchies', type='table')) }}
{%- endmacro %}

{#- The QIs whose released mapping is kept: [{qi, source, hierarchy, level}] for each released
    QI with a lookup hierarchy at a level above 0 (source: the QI whose `<qi>__original` column
    holds its original values, dbt_deid.original_value_sources). -#}
{% macro hierarchy_mapped_qis(cfg) -%}
  {%- set specs = dbt_deid.released_level_specs(cfg) -%}
  {%- set sources = dbt_deid.original_value_sources(cfg) -%}
  {%- set out = [] -%}
  {%- for q in cfg.qis if q.name in specs and q.hierarchy and (specs[q.name].level or 0) | int > 0 -%}
    {%- do out.append({'qi': q.name, 'source': sources[q.name], 'hierarchy': q.hierarchy, 'level': specs[q.name].level | int}) -%}
  {%- endfor -%}
  {{ return(out) }}
{%- endmacro %}

{#- The distinct (qi_name, level, original_value, generalized_value) pairs of `records` (a
    relation with `<source>__original` and `<qi><suffix>`: deid_suppressed with
    '__generalized', deid_generalized with ''), for the QIs of hierarchy_mapped_qis; none when
    there are none. One scan of `records` whatever the number of QIs: each record crossed with
    the QIs' names, its original and generalized value picked by name (review 8 final, R1: a
    union of one query per QI read the checked release once per QI). The records are first
    reduced to their distinct values of the columns read (a distinct of a projection of those
    columns is the same rows), so the cross join multiplies those, not every record: on
    PostgreSQL at 2.4 million records the publish step's insert crossed 7.1 million rows into
    its DISTINCT (issue 37). -#}
{% macro released_hierarchy_pairs_sql(cfg, records, suffix) -%}
  {%- set s = dbt.type_string() -%}
  {%- set mapped = dbt_deid.hierarchy_mapped_qis(cfg) -%}
  {%- if not mapped -%}{{ return(none) }}{%- endif -%}
  {%- set names = [] -%}{%- set originals = [] -%}{%- set generalized = [] -%}{%- set read = [] -%}
  {%- for m in mapped -%}
    {%- set name = dbt_deid.literal(m.qi) -%}
    {%- set o = dbt_deid.ident(m.source ~ '__original') -%}{%- set g = dbt_deid.ident(m.qi ~ suffix) -%}
    {%- for c in [o, g] if c not in read -%}{%- do read.append(c) -%}{%- endfor -%}
    {%- do names.append("select cast(" ~ name ~ " as " ~ s ~ ") as qi_name, " ~ m.level ~ " as level") -%}
    {%- do originals.append("when " ~ name ~ " then cast(r." ~ o ~ " as " ~ s ~ ")") -%}
    {%- do generalized.append("when " ~ name ~ " then cast(r." ~ g ~ " as " ~ s ~ ")") -%}
  {%- endfor -%}
  {{ return("select distinct q.qi_name, q.level, case q.qi_name " ~ originals | join(' ') ~ " end as original_value, case q.qi_name "
      ~ generalized | join(' ') ~ " end as generalized_value from (select distinct " ~ read | join(', ') ~ " from " ~ records
      ~ " as deid_hierarchy_records__) as r cross join (" ~ names | join(' union all ') ~ ") as q") }}
{%- endmacro %}

{#- The columns of deid_released_hierarchies, as written by record_released_hierarchies (the
    history row's hierarchy_check covers them all: stored_rows_check, the first three, one value
    per release, grouped, the others fingerprinted). -#}
{% macro released_hierarchies_columns() -%}
  {{ return(['release_id', 'release_name', 'release_version', 'qi_name', 'hierarchy', 'level', 'original_value', 'generalized_value']) }}
{%- endmacro %}

{#- Append the mapping of a published release (release_id, release_version `version`) to
    deid_released_hierarchies (created when absent) and return the number of pairs written (the
    history's hierarchy_values), none when the release has no hierarchy-mapped QI. Called by
    record_release just before the history row, in the publish transaction: the checked release
    is read once (one insert), and the count is taken from what was written (review 8 final,
    R1). -#}
{% macro record_released_hierarchies(cfg, truth, release_id, version) -%}
  {{ return(dbt_deid.own(adapter.dispatch('record_released_hierarchies', 'dbt_deid'))(cfg, truth, release_id, version)) }}
{%- endmacro %}

{% macro default__record_released_hierarchies(cfg, truth, release_id, version) -%}
  {%- set pairs = dbt_deid.released_hierarchy_pairs_sql(cfg, truth, '__generalized') -%}
  {%- if pairs is none -%}{{ return(none) }}{%- endif -%}
  {%- set store = dbt_deid.released_hierarchies_relation(truth) -%}
  {%- set s = dbt.type_string() -%}
  {%- do dbt_deid.create_schema_if_missing(store) -%}
  {% call statement('deid_released_hierarchies_create') -%}
    create table if not exists {{ store }} (release_id {{ s }}, release_name {{ s }}, release_version {{ dbt.type_bigint() }},
      qi_name {{ s }}, hierarchy {{ s }}, level {{ dbt.type_int() }}, original_value {{ s }}, generalized_value {{ s }})
  {%- endcall %}
  {%- do adapter.cache_added(store) -%}
  {%- set names = {} -%}{%- for m in dbt_deid.hierarchy_mapped_qis(cfg) -%}{%- do names.update({m.qi: m.hierarchy}) -%}{%- endfor -%}
  {% call statement('deid_released_hierarchies_insert') -%}
    insert into {{ store }} (release_id, release_name, release_version, qi_name, hierarchy, level, original_value, generalized_value)
    select {{ dbt_deid.literal(release_id) }}, {{ dbt_deid.literal(cfg.name) }}, {{ version }}, p.qi_name,
      case {% for q, h in names.items() %}when p.qi_name = {{ dbt_deid.literal(q) }} then {{ dbt_deid.literal(h | string) }} {% endfor %}end,
      p.level, p.original_value, p.generalized_value
    from ({{ pairs }}) as p
  {%- endcall %}
  {{ return(run_query("select count(*) from " ~ store ~ " where release_id = " ~ dbt_deid.literal(release_id)).rows[0][0] | int) }}
{%- endmacro %}
