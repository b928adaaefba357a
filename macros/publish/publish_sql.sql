{#- Column roles (El Emam et al. 2011 "Types of Variables", Table 1; ARX's attribute types): every source
    column of a release has exactly one role. record_id joins the suppression back and is never
    published; direct_identifiers and excluded columns are dropped; a quasi-identifier's source
    column is replaced by its released QIs (generalized, NULL where suppressed; several columns
    when several hierarchy levels are released); pass_through columns are copied unchanged.
    Nothing passes through by default: a source column with no role, for instance one added
    upstream after the release was written, fails the build naming it. -#}
{% macro assert_column_roles(cfg) -%}
  {{ return(dbt_deid.own(adapter.dispatch('assert_column_roles', 'dbt_deid'))(cfg)) }}
{%- endmacro %}

{% macro default__assert_column_roles(cfg) -%}
  {%- set src = dbt_deid.release_source(cfg) -%}
  {%- if not dbt_deid.run_data_checks() -%}{{ return(none) }}{%- endif -%}  {#- not while parsing, nor under compile/docs/ls -#}
  {%- set names = adapter.get_columns_in_relation(src) | map(attribute='name') | list -%}
  {%- set lower = names | map('lower') | list -%}
  {%- set roles = dbt_deid._role_of_columns(cfg) -%}
  {%- for col, role in roles.items() -%}
    {%- if col not in lower -%}
      {{ exceptions.raise_compiler_error("model " ~ this.identifier ~ ": release setting '" ~ role ~ "' names column '" ~ col ~ "', which is not in source " ~ src ~ " (columns: " ~ lower | join(', ') ~ ")") }}
    {%- endif -%}
  {%- endfor -%}
  {%- set missing = [] -%}
  {%- for col in names -%}
    {%- if col | lower not in roles -%}{%- do missing.append(col) -%}{%- endif -%}
  {%- endfor -%}
  {%- if missing | length > 0 -%}
    {{ exceptions.raise_compiler_error("model " ~ this.identifier ~ ": source " ~ src ~ " has column(s) " ~ missing | join(', ') ~ " with no role in release '" ~ cfg.name ~ "'; nothing passes through by default: list each under quasi_identifiers, pass_through or sensitive (published unchanged), direct_identifiers or excluded (dropped)") }}
  {%- endif -%}
{%- endmacro %}

{#- lower-case source column -> its role (record_id, quasi_identifiers.<qi>, direct_identifiers,
    pass_through, sensitive, excluded). -#}
{% macro _role_of_columns(cfg) -%}
  {%- set roles = {cfg.record_id | lower: 'record_id'} -%}
  {%- for q in cfg.qis -%}{%- do roles.update({q.column | lower: 'quasi_identifiers.' ~ q.name}) -%}{%- endfor -%}
  {%- for role in ['direct_identifiers', 'pass_through', 'sensitive', 'excluded'] -%}
    {%- for c in cfg[role] -%}{%- do roles.update({c | lower: role}) -%}{%- endfor -%}
  {%- endfor -%}
  {{ return(roles) }}
{%- endmacro %}

{#- The published columns in the source's order: each QI source column replaced by its released
    QIs, pass-through columns as they are; [] while parsing. -#}
{% macro published_columns(cfg) -%}
  {{ return(dbt_deid.own(adapter.dispatch('published_columns', 'dbt_deid'))(cfg)) }}
{%- endmacro %}

{% macro default__published_columns(cfg) -%}
  {%- set out = [] -%}
  {%- for item in dbt_deid._published_items(cfg) -%}{%- do out.append(item[1]) -%}{%- endfor -%}
  {{ return(out) }}
{%- endmacro %}

{#- [kind, name] per published column: kind 'qi' (read from the suppressed records) or 'pass'
    (copied from the source, name as the source spells it). -#}
{% macro _published_items(cfg) -%}
  {%- if not execute -%}{{ return([]) }}{%- endif -%}
  {%- set released = cfg.released_qis -%}
  {%- set by_source = {} -%}
  {%- for q in cfg.qis -%}
    {%- set key = q.column | lower -%}
    {%- if key not in by_source -%}{%- do by_source.update({key: []}) -%}{%- endif -%}
    {%- if q.name in released -%}{%- do by_source[key].append(q.name) -%}{%- endif -%}
  {%- endfor -%}
  {%- set passing = (cfg.pass_through + cfg.sensitive) | map('lower') | list -%}
  {%- set out = [] -%}
  {%- for col in adapter.get_columns_in_relation(dbt_deid.release_source(cfg)) -%}
    {%- if col.name | lower in by_source -%}
      {%- for q in by_source[col.name | lower] -%}{%- do out.append(['qi', q]) -%}{%- endfor -%}
    {%- elif col.name | lower in passing -%}
      {%- do out.append(['pass', col.name]) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(out) }}
{%- endmacro %}

{#- The published table: same rows as the release input (joined on the record id), the
    published columns of published_columns(); each released QI's cells as published_value_sql
    shows them (docs/published-types.md). -#}
{#- `values`: a pattern-level relation holding the released QI values of `suppressed` (the
    release's deid_suppressed_patterns), from which the formatted columns' lookups read their
    distinct values (published_value_lookup), so the record-level table is not read again
    (issue 33: at most 4 reads per build); `suppressed` itself when none. A value the lookup
    lacks would be published NULL, and the proof published_matches_checked, which compares the
    candidate with the checked release, refuses it. -#}
{% macro publish_sql(cfg, suppressed, values=none) -%}
  {{ return(dbt_deid.own(adapter.dispatch('publish_sql', 'dbt_deid'))(cfg, suppressed, values)) }}
{%- endmacro %}

{% macro default__publish_sql(cfg, suppressed, values=none) -%}
  {#- the input snapshot (deid_input, the source as read this build; the gate table's binding
      proves it is the source as it is now); the inner join keeps the release's records (its
      sample, if any) -#}
  {%- set src = dbt_deid.release_snapshot() -%}
  {%- set rid = dbt_deid.ident(cfg.record_id) -%}
  {%- set out = [] -%}
  {%- set kinds = dbt_deid.published_value_kinds(cfg) -%}  {#- numbers stay numbers, periods and intervals as labels (published_value.sql) -#}
  {%- set items = dbt_deid._published_items(cfg) -%}
  {#- each formatted column from a lookup of its distinct values (published_value_lookup.sql) -#}
  {%- set qis = [] -%}{%- for kind, name in items if kind == 'qi' -%}{%- do qis.append(name) -%}{%- endfor -%}
  {%- set shown = dbt_deid.published_value_lookup(cfg, kinds, values if values is not none else suppressed, 's', qis) -%}
  {%- for kind, name in items -%}
    {%- if kind == 'qi' -%}
      {%- do out.append(shown.exprs[name] ~ ' as ' ~ dbt_deid.ident(name)) -%}
    {%- else -%}
      {%- do out.append('src.' ~ dbt_deid.ident(name) ~ ' as ' ~ dbt_deid.ident(name)) -%}
    {%- endif -%}
  {%- endfor -%}
  select {{ out | join(',\n    ') if out else 'cast(null as ' ~ dbt.type_string() ~ ') as no_column' }}
  from {{ src }} as src
  inner join {{ suppressed }} as s on s.{{ rid }} = src.{{ rid }}
  {%- for j in shown.joins %}
  {{ j }}
  {%- endfor %}
{%- endmacro %}

{#- Spark: the candidate's record-level join (the input snapshot with the checked release) as a
    sort-merge join (issue 37, session 17). Spark sizes deid_input by its files scaled to the
    columns read (at 2,375,331 records its record id and one pass-through column: 5.9 MiB,
    under spark.sql.autoBroadcastJoinThreshold's 10 MB), so it broadcast 2.4 million rows: the
    driver builds their hash table in its heap (old generation peak 436 MB in a fresh 1 GB
    driver, 213 MB still held after the statement) and, with the rest of a 2.4M build's heap in
    use, the default 1 GB driver ran out of memory ("Not enough memory to build and broadcast
    the table": two whole builds refused). A sort-merge join runs in the executors' managed
    memory and spills; the distinct-value lookups (a few rows each) keep their plans; the rows
    are the same (docs/performance.md "Spark at 2.4M, session 17"). -#}
{% macro spark__publish_sql(cfg, suppressed, values=none) -%}
  {{ return(dbt_deid.merge_join_hint(dbt_deid.default__publish_sql(cfg, suppressed, values), '\\A\\s*(select)\\b', ['src', 's'], 1)) }}
{%- endmacro %}
