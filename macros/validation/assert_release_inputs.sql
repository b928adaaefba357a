{#- Data checks made before the generalized table is built, each failing with one message that
    names the model, column and value: every configured column exists in the source, the
    source is not empty, record_id is unique and not null, and every source value of a
    lookup-hierarchy QI is in its hierarchy (interval and date rule values are checked where
    they are read, by assert_rule_values in deid_hierarchy). A NULL QI value is a
    missing value (its own category), not an error. -#}
{% macro assert_release_inputs(cfg, hierarchy_relation) -%}
  {{ return(dbt_deid.own(adapter.dispatch('assert_release_inputs', 'dbt_deid'))(cfg, hierarchy_relation)) }}
{%- endmacro %}

{% macro default__assert_release_inputs(cfg, hierarchy_relation) -%}
  {#- Skipped under compile/docs/ls (dbt_deid.run_data_checks: they build nothing) and under
      `--empty` (every ref and source reads no rows: nothing to check, and the publish
      materialization publishes nothing, see docs/projects.md, "Fresh warehouses and --empty"). -#}
  {%- if not dbt_deid.run_data_checks() or flags.EMPTY -%}{{ return(none) }}{%- endif -%}
  {%- set src = dbt_deid.protected_input(cfg) ~ ' as src_in' -%}
  {%- set model = "model " ~ this.identifier -%}
  {%- do dbt_deid.assert_source_columns(cfg) -%}
  {#- one scan of the input for the record id and every QI's missing_label clash (issue 33) -#}
  {%- set clashes = [] -%}
  {%- for q in cfg.qis -%}{%- do clashes.append(dbt_deid.missing_label_clash_sql(cfg, q)) -%}{%- endfor -%}
  {#- distinct ids counted by the record key's canonical text (record_id_text_sql: '17.0' is
      '17'; review 18, F5): two ids of one text would share a record key in the store. As the
      text is a function of the id, it counts no more than the raw values: those are counted
      only to word the refusal. -#}
  {%- set id_text = dbt_deid.record_id_text_sql('src_in.' ~ dbt_deid.ident(cfg.record_id)) -%}
  {%- set stats = run_query("select count(*), count(distinct " ~ id_text ~ "), count(" ~ dbt_deid.ident(cfg.record_id) ~ ")" ~ ((", " ~ clashes | join(", ")) if clashes else "") ~ " from " ~ src).rows[0] -%}
  {%- if stats[0] == 0 -%}
    {{ exceptions.raise_compiler_error(model ~ ": source " ~ dbt_deid.release_source(cfg) ~ " has no records" ~ (" in its sample" if cfg.sample is not none else "") ~ "; nothing to release") }}
  {%- endif -%}
  {%- if cfg.sample is not none and cfg.sample.order == 'population_first' and run_query("select count(*) from " ~ dbt_deid.release_input(cfg) ~ " as file_in").rows[0][0] == 0 -%}
    {#- the population is protected, but the file drawn from it would be empty -#}
    {{ exceptions.raise_compiler_error(model ~ ": source " ~ dbt_deid.release_source(cfg) ~ " has no records in its sample (sample.fraction " ~ cfg.sample.fraction ~ ", slot " ~ cfg.sample.slot ~ "); nothing to release") }}
  {%- endif -%}
  {%- if stats[2] != stats[0] -%}
    {{ exceptions.raise_compiler_error(model ~ ": column '" ~ cfg.record_id ~ "' (record_id) is NULL in " ~ (stats[0] - stats[2]) ~ " records") }}
  {%- endif -%}
  {%- if stats[1] != stats[0] -%}
    {%- set raw = run_query("select count(distinct " ~ dbt_deid.ident(cfg.record_id) ~ ") from " ~ src).rows[0][0] -%}
    {%- if raw != stats[0] -%}
      {{ exceptions.raise_compiler_error(model ~ ": column '" ~ cfg.record_id ~ "' (record_id) is not unique: " ~ stats[0] ~ " records, " ~ raw ~ " distinct values") }}
    {%- endif -%}
    {{ exceptions.raise_compiler_error(model ~ ": column '" ~ cfg.record_id ~ "' (record_id) is not unique as a record key: " ~ stats[0] ~ " records, " ~ raw ~ " distinct values, but " ~ stats[1] ~ " distinct after the key's canonical text, which drops a fraction of zeros ('7.0' is '7', so that a column retyped from INTEGER to DECIMAL keeps its keys): two ids that differ only so would be one record in the store; make the ids distinct as whole numbers or as text without such a fraction") }}
  {%- endif -%}
  {%- set absent = dbt_deid.values_missing_from_hierarchies(cfg, src, hierarchy_relation) -%}
  {%- for q in cfg.qis -%}
    {%- do dbt_deid.assert_no_missing_label_clash(cfg, q, stats[3 + loop.index0], model) -%}
    {%- if q.hierarchy is not none -%}
      {%- set rows = absent.get(q.name, []) -%}
      {%- if rows | length > 0 -%}
        {{ exceptions.raise_compiler_error(model ~ ": column '" ~ q.column ~ "' value '" ~ rows[0][0] ~ "' is missing from hierarchy '" ~ q.hierarchy ~ "'" ~ ((" (" ~ (rows | length - 1) ~ " more values missing)") if rows | length > 1 else "") ~ dbt_deid.hierarchy_header_hint(q.hierarchy, rows | map(attribute=0) | list)) }}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
{%- endmacro %}

{#- The source values of every lookup-hierarchy QI that its hierarchy lacks at level 0, from one
    GROUPING SETS pass over the input `src` (aliased src_in; issue 33): {qi name: rows of one
    value each, in text order}. -#}
{% macro values_missing_from_hierarchies(cfg, src, hierarchy_relation) -%}
  {%- set s = dbt.type_string() -%}
  {%- set lookups = cfg.qis | selectattr('hierarchy') | list -%}
  {%- if lookups | length == 0 -%}{{ return({}) }}{%- endif -%}
  {%- set columns = [] -%}
  {%- for q in lookups -%}{%- if q.column not in columns -%}{%- do columns.append(q.column) -%}{%- endif -%}{%- endfor -%}
  {%- set cols = [] -%}{%- set flags = [] -%}{%- set sets = [] -%}
  {%- for c in columns -%}
    {%- do cols.append('src_in.' ~ dbt_deid.ident(c) ~ ' as c' ~ loop.index0) -%}
    {%- do flags.append('grouping(src_in.' ~ dbt_deid.ident(c) ~ ') as g' ~ loop.index0) -%}
    {%- do sets.append('(src_in.' ~ dbt_deid.ident(c) ~ ')') -%}
  {%- endfor -%}
  {%- set branches = [] -%}
  {%- for q in lookups -%}
    {%- set i = columns.index(q.column) -%}
    {%- do branches.append("select " ~ loop.index0 ~ " as qi_index, cast(v.c" ~ i ~ " as " ~ s ~ ") as v from deid_lookup_values as v left join (select original_value from " ~ hierarchy_relation ~ " where qi_name = " ~ dbt_deid.literal(q.name) ~ " and level = 0) as h on cast(v.c" ~ i ~ " as " ~ s ~ ") = h.original_value where v.g" ~ i ~ " = 0 and v.c" ~ i ~ " is not null and h.original_value is null") -%}
  {%- endfor -%}
  {%- set rows = run_query("with deid_lookup_values as " ~ dbt_deid.cte_materialized() ~ "(select " ~ (cols + flags) | join(', ') ~ " from " ~ src ~ " group by grouping sets (" ~ sets | join(', ') ~ "))\nselect qi_index, v from (" ~ branches | join(' union all ') ~ ") as m group by qi_index, v order by qi_index, v").rows -%}
  {%- set out = {} -%}
  {%- for r in rows -%}
    {%- set name = lookups[r[0]].name -%}
    {%- if name not in out -%}{%- do out.update({name: []}) -%}{%- endif -%}
    {%- do out[name].append([r[1]]) -%}
  {%- endfor -%}
  {{ return(out) }}
{%- endmacro %}

{#- A NULL QI value is published as the release's missing_label, a category of its own: a
    source value equal to that label would be merged with the NULLs and the two could not be
    told apart. One error naming the model, the column and the clash (the CLI refuses the same
    input: dbt_deid.tools.io.mark_missing). The value named is the label the release configured. -#}
{#- `n`: the records whose value is the label (missing_label_clash_sql, counted in the input
    scan of assert_release_inputs). -#}
{% macro assert_no_missing_label_clash(cfg, q, n, model) -%}
  {{ return(adapter.dispatch('assert_no_missing_label_clash', 'dbt_deid')(cfg, q, n, model)) }}
{%- endmacro %}

{% macro default__assert_no_missing_label_clash(cfg, q, n, model) -%}
  {%- if (n or 0) > 0 -%}
    {{ exceptions.raise_compiler_error(model ~ ": column '" ~ q.column ~ "' holds the value '" ~ cfg.missing_label ~ "' in " ~ n ~ " record(s), which is the release's missing_label (the label of a NULL value): the two would be merged into one category. Set missing_label to a label the column does not hold") }}
  {%- endif -%}
{%- endmacro %}

{#- The aggregate counting the records of the input (aliased src_in) whose value of QI `q` is
    the release's missing_label. -#}
{% macro missing_label_clash_sql(cfg, q) -%}
  {{ return("sum(case when cast(src_in." ~ dbt_deid.ident(q.column) ~ " as " ~ dbt.type_string() ~ ") = " ~ dbt_deid.literal(cfg.missing_label) ~ " then 1 else 0 end)") }}
{%- endmacro %}

{#- Every value of an interval-rule QI reads as an exact number (dbt_deid.exact_number_sql: at
    most 20 integer digits and 18 decimals) and every value of a date-rule QI as a date, checked
    before deid_hierarchy converts them (issue 13 item 7): a value that does not is one error
    naming the model, the column and the value, not the warehouse's conversion error. -#}
{% macro assert_rule_values(cfg) -%}
  {{ return(dbt_deid.own(adapter.dispatch('assert_rule_values', 'dbt_deid'))(cfg)) }}
{%- endmacro %}

{% macro default__assert_rule_values(cfg) -%}
  {{ return(dbt_deid.rule_values_check(cfg, false)) }}
{%- endmacro %}

{#- Spark (issue 37, session 18): the same checks over the input grouped first, one row per
    distinct value of each checked column (GROUPING SETS, each row weighted by its record
    count `deid_n__`), so the conversions run once per distinct value, not once per record
    (deid_hierarchy's rule check: 36.8 s of a loaded 2.4M build for two columns' four
    conversions per record). Every aggregate is conditioned on its column being non-NULL, so
    the rows of the other columns' sets (where the column is NULL) add nothing: the same
    counts and first values, the same errors. -#}
{% macro spark__assert_rule_values(cfg) -%}
  {{ return(dbt_deid.rule_values_check(cfg, true)) }}
{%- endmacro %}

{#- The body of assert_rule_values; `grouped`: read the input grouped by each checked column
    (GROUPING SETS) and weight each row by its count, as spark__assert_rule_values. -#}
{% macro rule_values_check(cfg, grouped) -%}
  {%- set s = dbt.type_string() -%}
  {%- set one = 'src_in.deid_n__' if grouped else '1' -%}
  {%- set columns = [] -%}
  {%- for q in cfg.qis -%}
    {%- if q.rule is not none and q.rule.type in ['interval', 'date'] and dbt_deid.ident(q.column) not in columns -%}{%- do columns.append(dbt_deid.ident(q.column)) -%}{%- endif -%}
  {%- endfor -%}
  {%- if grouped -%}
    {%- set sets = [] -%}{%- for c in columns -%}{%- do sets.append('(' ~ c ~ ')') -%}{%- endfor -%}
    {%- set src = '(select ' ~ columns | join(', ') ~ ', count(*) as deid_n__ from ' ~ dbt_deid.protected_input(cfg) ~ ' as s_in group by grouping sets (' ~ sets | join(', ') ~ ')) as src_in' -%}
  {%- else -%}
    {%- set src = dbt_deid.protected_input(cfg) ~ ' as src_in' -%}
  {%- endif -%}
  {#- one scan of the input for every rule QI (issue 33): per interval QI the values that are
      not exact numbers by kind (NaN, infinite, other) and the first other one; per date QI
      the first value that is not a date -#}
  {%- set checks = [] -%}{%- set aggregates = [] -%}
  {%- for q in cfg.qis -%}
    {%- if q.rule is not none and q.rule.type in ['interval', 'date'] -%}
      {%- set col = 'src_in.' ~ dbt_deid.ident(q.column) -%}
      {%- set text = 'cast(' ~ col ~ ' as ' ~ s ~ ')' -%}
      {%- if q.rule.type == 'interval' -%}
        {%- set bad = col ~ ' is not null and ' ~ dbt_deid.try_cast_sql(text, dbt_deid.exact_number_type()) ~ ' is null' -%}
        {%- set txt = 'lower(trim(' ~ text ~ '))' -%}
        {%- set nan = txt ~ " = 'nan'" -%}
        {%- set inf = txt ~ " in ('inf', '-inf', '+inf', 'infinity', '-infinity', '+infinity')" -%}
        {%- do aggregates.append('sum(case when ' ~ bad ~ ' and ' ~ nan ~ ' then ' ~ one ~ ' else 0 end)') -%}
        {%- do aggregates.append('sum(case when ' ~ bad ~ ' and ' ~ inf ~ ' then ' ~ one ~ ' else 0 end)') -%}
        {%- do aggregates.append('sum(case when ' ~ bad ~ ' and not (' ~ nan ~ ' or ' ~ inf ~ ') then ' ~ one ~ ' else 0 end)') -%}
        {%- do aggregates.append('min(case when ' ~ bad ~ ' and not (' ~ nan ~ ' or ' ~ inf ~ ') then ' ~ text ~ ' end)') -%}
        {%- do checks.append((q, 'a number (rule interval; numbers may have at most 20 digits before the decimal point and 18 after it)', 4)) -%}
      {%- else -%}
        {%- set bad = col ~ ' is not null and ' ~ dbt_deid.try_cast_sql(col, 'date') ~ ' is null' -%}
        {%- do aggregates.append('min(case when ' ~ bad ~ ' then ' ~ text ~ ' end)') -%}
        {%- do checks.append((q, 'a date (rule date)', 1)) -%}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if checks | length == 0 -%}{{ return(none) }}{%- endif -%}
  {%- set row = run_query("select " ~ aggregates | join(', ') ~ " from " ~ src).rows[0] -%}
  {%- set at = [0] -%}
  {%- for q, what, width in checks -%}
    {%- set i = at[0] -%}
    {%- if width == 4 -%}
      {%- do dbt_deid._assert_interval_values(q, {'nan': row[i] or 0, 'infinite': row[i + 1] or 0, 'other': row[i + 2] or 0, 'first': row[i + 3]}, what) -%}
    {%- elif row[i] is not none -%}
      {{ exceptions.raise_compiler_error("model " ~ this.identifier ~ ": column '" ~ q.column ~ "' value '" ~ row[i] ~ "' is not " ~ what) }}
    {%- endif -%}
    {%- do at.append(i + width) -%}{%- do at.pop(0) -%}
  {%- endfor -%}
{%- endmacro %}

{#- The values of an interval-rule QI that are not exact numbers, by kind (issue 35): NaN,
    infinite (inf, -inf) and the rest (text that is not a number, or a number out of range:
    more than 20 digits before the decimal point or 18 after it). One error names the model,
    the column, every kind present with its number of records, and one value of the rest (the
    first in text order, as a value that is not a number has always been named: it is a data
    error to fix, never a value that is published or classed). A DOUBLE column holding NaN, inf
    and 1e300 names all three kinds, not only 1e300. `counts`: {nan, infinite, other: records,
    first: the first other value}, counted in assert_rule_values' one scan. -#}
{% macro _assert_interval_values(q, counts, what) -%}
  {%- if counts.nan == 0 and counts.infinite == 0 and counts.other == 0 -%}{{ return(none) }}{%- endif -%}
  {%- set head = "model " ~ this.identifier ~ ": column '" ~ q.column ~ "'" -%}
  {%- if counts.nan == 0 and counts.infinite == 0 -%}
    {{ exceptions.raise_compiler_error(head ~ " value '" ~ counts.first ~ "' is not " ~ what ~ (" (" ~ counts.other ~ " records hold such values)" if counts.other > 1 else "")) }}
  {%- endif -%}
  {%- set parts = [] -%}
  {%- if counts.nan > 0 -%}{%- do parts.append("NaN in " ~ counts.nan ~ " record(s)") -%}{%- endif -%}
  {%- if counts.infinite > 0 -%}{%- do parts.append("infinite (inf or -inf) in " ~ counts.infinite ~ " record(s)") -%}{%- endif -%}
  {%- if counts.other > 0 -%}{%- do parts.append("other values that are not exact numbers in " ~ counts.other ~ " record(s), the first '" ~ counts.first ~ "'") -%}{%- endif -%}
  {{ exceptions.raise_compiler_error(head ~ " has values that are not " ~ what ~ ": " ~ parts | join('; ')) }}
{%- endmacro %}

{#- `expr` cast to `type`, NULL where it does not convert: dbt.safe_cast (TRY_CAST or SAFE_CAST
    on the engines that have one); DuckDB's TRY_CAST (dbt-duckdb keeps dbt's plain CAST). -#}
{% macro try_cast_sql(expr, type) -%}
  {{ return(dbt_deid.own(adapter.dispatch('try_cast_sql', 'dbt_deid'))(expr, type)) }}
{%- endmacro %}

{% macro default__try_cast_sql(expr, type) -%}
  {{ return(dbt.safe_cast(expr, type)) }}
{%- endmacro %}

{% macro duckdb__try_cast_sql(expr, type) -%}
  {{ return('try_cast(' ~ expr ~ ' as ' ~ type ~ ')') }}
{%- endmacro %}

{#- Every column the release names (QIs, record_id, direct identifiers) exists in the source,
    and no two columns the release models write share a name (assert_release_names). -#}
{% macro assert_source_columns(cfg) -%}
  {{ return(dbt_deid.own(adapter.dispatch('assert_source_columns', 'dbt_deid'))(cfg)) }}
{%- endmacro %}

{% macro default__assert_source_columns(cfg) -%}
  {%- if not dbt_deid.run_data_checks() -%}{{ return(none) }}{%- endif -%}
  {%- do dbt_deid.assert_column_roles(cfg) -%}
  {%- set columns = adapter.get_columns_in_relation(dbt_deid.release_source(cfg)) -%}
  {%- do dbt_deid.assert_release_names(cfg, columns | map(attribute='name') | list) -%}
  {%- do dbt_deid.assert_record_id_type(cfg, columns) -%}
{%- endmacro %}

{#- The release models put a QI's columns (`<qi>`, `<qi>__original`, `<qi>__generalized`,
    `<qi>__suppressed`), the record id, internal columns (the pattern count `n`, the map's
    `rank_from`/`rank_to`, ...) and, in deid_published, the source columns published unchanged
    side by side. Two of them with one name would be one column (or an error) in the
    warehouse, so a QI name that takes another's name is an error naming the setting. Names are
    compared ignoring case: DuckDB, Snowflake and others fold them (issue 13). -#}
{% macro assert_release_names(cfg, source_columns) -%}
  {{ return(dbt_deid.own(adapter.dispatch('assert_release_names', 'dbt_deid'))(cfg, source_columns)) }}
{%- endmacro %}

{% macro default__assert_release_names(cfg, source_columns) -%}
  {%- set internal = {
      'n': "the count column 'n' of the pattern tables",
      'rank_from': "a column of the suppression map (rank_from)",
      'rank_to': "a column of the suppression map (rank_to)",
      'deid_rank__': "an internal column of deid_suppressed (deid_rank__)",
      'smallest_class_size': "a column of the risk tables (smallest_class_size)",
      'by_column': "a column of deid_diagnostics' suppression breakdown (by_column)",
      'category': "a column of deid_diagnostics' suppression breakdown (category)",
      'deid_category__': "an internal column of deid_diagnostics' suppression breakdown (deid_category__)"} -%}
  {%- if dbt_deid.ola_enabled() -%}
    {#- the OLA node report (deid_ola_search) has one column per QI next to these -#}
    {%- for c in ['role', 'height', 'suppressed', 'suppressed_share', 'passes', 'entropy', 'precision', 'discernibility', 'loss', 'k_minimal', 'best_k_minimal', 'optimal', 'chosen', 'search', 'k', 'max_suppression', 'metric', 'records', 'nodes_evaluated', 'lattice_size', 'message'] -%}
      {%- do internal.update({c: "a column of the OLA node report deid_ola_search (" ~ c ~ ")"}) -%}
    {%- endfor -%}
  {%- endif -%}
  {%- set rid_internal = ['deid_rank__', 'deid_category__', 'smallest_class_size', 'prosecutor_risk'] -%}
  {%- set taken = {(cfg.record_id | string | lower): "the record id '" ~ cfg.record_id ~ "'"} -%}
  {%- for r in rid_internal -%}
    {%- if (cfg.record_id | string | lower) == r -%}
      {{ dbt_deid._config_error('record_id', "the name '" ~ cfg.record_id ~ "' is also an internal column of the release models (" ~ r ~ "; names are compared ignoring case); rename the column in the source") }}
    {%- endif -%}
  {%- endfor -%}
  {%- set suffixes = [('', ''), ('__original', 'the original-value column of '), ('__generalized', 'the generalized-value column of '), ('__suppressed', 'the suppression flag of ')] -%}
  {#- name prefixes of columns the package adds next to the QIs (and, under the attribute
      disclosure remedy, the sensitive columns) in its pattern tables: the advice rows of
      deid_suppression_map and the exact check's columns of deid_suppressed_patterns (review
      13 final, L2 and L4: a QI named like one took its place silently) -#}
  {%- set prefixes = [('advice__', "the prefix of the advice columns of deid_suppression_map (advice__*)"),
                      ('deid_consistent_', "the prefix of the exact check's columns of deid_suppressed_patterns (deid_consistent_<i>)"),
                      ('deid_exact_combinations', "a column of deid_suppressed_patterns (deid_exact_combinations)")] -%}
  {%- set named = [] -%}
  {%- for q in cfg.qis -%}{%- do named.append(['quasi_identifiers.' ~ q.name, q.name | string]) -%}{%- endfor -%}
  {%- for c in (cfg.get('sensitive') or []) -%}{%- do named.append(['sensitive', c | string]) -%}{%- endfor -%}
  {%- for setting, name in named -%}
    {%- for prefix, what in prefixes -%}
      {%- if (name | lower).startswith(prefix) -%}
        {{ dbt_deid._config_error(setting, "the name '" ~ name ~ "' starts with '" ~ prefix ~ "', " ~ what ~ " (names are compared ignoring case); give the column another name") }}
      {%- endif -%}
    {%- endfor -%}
  {%- endfor -%}
  {%- for q in cfg.qis -%}
    {%- set setting = 'quasi_identifiers.' ~ q.name -%}
    {%- set fix = "; give the quasi-identifier another name (its source column stays, with column: " ~ q.column ~ ")" -%}
    {%- if (q.name | string | lower) in internal -%}
      {{ dbt_deid._config_error(setting, "the name '" ~ q.name ~ "' is " ~ internal[q.name | string | lower] ~ " (names are compared ignoring case)" ~ fix) }}
    {%- endif -%}
    {%- for suffix, what in suffixes -%}
      {%- set name = (q.name | string) ~ suffix -%}
      {%- set key = name | lower -%}
      {%- if key in taken -%}
        {{ dbt_deid._config_error(setting, "the name '" ~ name ~ "'" ~ ((" (" ~ what ~ "this quasi-identifier)") if suffix else "") ~ " is also " ~ taken[key] ~ " (names are compared ignoring case)" ~ fix) }}
      {%- endif -%}
      {%- do taken.update({key: (what ~ "quasi-identifier '" ~ q.name ~ "'") if suffix else ("quasi-identifier '" ~ q.name ~ "'")}) -%}
    {%- endfor -%}
  {%- endfor -%}
  {#- deid_published: the source columns that are not QI columns or direct identifiers (or the
      release's pass_through list when it has one) are published next to the QIs. -#}
  {%- set dropped = [] -%}
  {%- for q in cfg.qis -%}{%- do dropped.append(q.column | string | lower) -%}{%- endfor -%}
  {%- for d in cfg.direct_identifiers -%}{%- do dropped.append(d | string | lower) -%}{%- endfor -%}
  {%- set kept = {} -%}
  {%- set declared = cfg.get('pass_through') -%}
  {%- if declared is not none -%}{%- set declared = declared + (cfg.get('sensitive') or []) -%}{%- endif -%}
  {%- for c in (declared if declared is not none else source_columns) -%}
    {%- if (c | string | lower) not in dropped -%}{%- do kept.update({c | string | lower: c}) -%}{%- endif -%}
  {%- endfor -%}
  {%- for q in cfg.qis -%}
    {%- if (q.name | string | lower) in kept and (q.name | string | lower) != (cfg.record_id | string | lower) -%}
      {{ dbt_deid._config_error('quasi_identifiers.' ~ q.name, "the name '" ~ q.name ~ "' is also source column '" ~ kept[q.name | string | lower] ~ "', which deid_published keeps (names are compared ignoring case); give the quasi-identifier another name (its source column stays, with column: " ~ q.column ~ ")") }}
    {%- endif -%}
  {%- endfor -%}
{%- endmacro %}
