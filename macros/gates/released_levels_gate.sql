{#- The gate released_levels (review 9, G4): the checked release was generalized at the levels
    the gate table records, the levels the publish step then formats every published cell with
    and the history records (released_levels_json). With `generalization.search: ola` those
    levels are read from deid_ola_levels, a table another invocation can rebuild (`dbt run -s
    +deid_ola_levels` under other settings) without rebuilding deid_generalized and
    deid_suppressed; with fixed levels a settings change does the same to a gate table rebuilt
    alone (`dbt run -s deid_gate_results deid_published`). Either way the checked release's
    labels would be published as another level's intervals or periods (a checked `0-19`
    published as `[0, 10)`), so the gate table proves the levels from the data: every record's
    true value at its released level (`<qi>__generalized`, before suppression) is its original
    value (`<qi>__original`) generalized at the recorded level in deid_hierarchy, exactly as
    generalize_sql computed it (the missing label for a missing value). The count of records
    whose value is not is taken in the gate table's one scan of the checked release
    (input_unchanged's, gate_input_unchanged_sql) on the engines that fingerprint in SQL, in a
    query of its own elsewhere. Messages name QIs, levels and counts only. -#}

{#- The level of every QI of the release as it stands now: OLA's choice (deid_ola_levels, read
    through the graph: _chosen_levels) or the configured `level`. {qi: level}. -#}
{% macro checked_levels(cfg) -%}
  {%- set chosen = dbt_deid._chosen_levels() -%}
  {%- set out = {} -%}
  {%- for q in cfg.qis -%}{%- do out.update({q.name: chosen.get(q.name, q.level) | int}) -%}{%- endfor -%}
  {{ return(out) }}
{%- endmacro %}

{#- `levels` as text for messages, in the QIs' order: 'province 0, age 3, ...'. -#}
{% macro levels_text(cfg, levels) -%}
  {%- set parts = [] -%}
  {%- for q in cfg.qis if q.name in levels -%}{%- do parts.append(q.name ~ ' ' ~ levels[q.name]) -%}{%- endfor -%}
  {{ return(parts | join(', ')) }}
{%- endmacro %}

{#- `truth` with, per QI (the i-th of cfg.qis), a flag `deid_level_mismatch_<i>__` (1 when the
    record's `<qi>__generalized` is not its `__original` generalized at `levels[qi]`, else 0)
    and `deid_present__` = 1, as a parenthesized subquery (alias it). The hierarchy's slice is
    grouped by original value, so a slice with two groups for one value flags it rather than
    doubling the record. -#}
{% macro released_levels_flags_sql(cfg, truth, hierarchy, levels) -%}
  {{ return(dbt_deid.own(adapter.dispatch('released_levels_flags_sql', 'dbt_deid'))(cfg, truth, hierarchy, levels)) }}
{%- endmacro %}

{% macro default__released_levels_flags_sql(cfg, truth, hierarchy, levels) -%}
  {%- set miss = dbt_deid.literal(cfg.missing_label) -%}
  {%- set sources = dbt_deid.original_value_sources(cfg) -%}
  {%- set flags = [] -%}{%- set joins = [] -%}
  {%- for q in cfg.qis -%}
    {%- set h = 'deid_h' ~ loop.index ~ '__' -%}
    {%- set orig = 't0.' ~ dbt_deid.ident(sources[q.name] ~ '__original') -%}
    {%- set gen = 't0.' ~ dbt_deid.ident(q.name ~ '__generalized') -%}
    {%- do joins.append('left join (select original_value, min(generalized_value) as deid_lo__, max(generalized_value) as deid_hi__ from '
        ~ hierarchy ~ ' where qi_name = ' ~ dbt_deid.literal(q.name) ~ ' and level = ' ~ levels[q.name] ~ ' group by original_value) as ' ~ h
        ~ ' on ' ~ h ~ '.original_value = ' ~ orig) -%}
    {%- do flags.append('case when ' ~ gen ~ ' = ' ~ h ~ '.deid_lo__ and ' ~ h ~ '.deid_lo__ = ' ~ h ~ '.deid_hi__ then 0'
        ~ ' when ' ~ orig ~ ' = ' ~ miss ~ ' and ' ~ gen ~ ' = ' ~ miss ~ ' then 0 else 1 end as deid_level_mismatch_' ~ loop.index ~ '__') -%}
  {%- endfor -%}
  {{ return('(select t0.*, 1 as deid_present__, ' ~ flags | join(', ') ~ ' from ' ~ truth ~ ' as t0 ' ~ joins | join(' ')  ~ ')') }}
{%- endmacro %}

{#- Spark (issue 37, session 18): every QI's slice of the hierarchy from one scan and one
    aggregation of it (a CTE computed once, cte_computed_once, that each QI's join reads with
    its qi_name), not one scan and aggregation per QI (10 at the benchmark's settings, each
    its own stages, inside the gate table's scan). The default form's SQL with each QI's
    slice subquery replaced by its read of the CTE (each must occur exactly once; anything else
    is a bug of dbt_deid and a compile error): the same flags, the same slices (the CTE keeps
    each QI's rows at its level only, grouped by qi_name and original value). -#}
{% macro spark__released_levels_flags_sql(cfg, truth, hierarchy, levels) -%}
  {%- set default = dbt_deid.default__released_levels_flags_sql(cfg, truth, hierarchy, levels) -%}
  {%- set out = [default] -%}{%- set wanted = [] -%}  {#- (a list: a `set` in a loop does not outlive it) -#}
  {%- for q in cfg.qis -%}
    {%- set slice = '(select original_value, min(generalized_value) as deid_lo__, max(generalized_value) as deid_hi__ from '
        ~ hierarchy ~ ' where qi_name = ' ~ dbt_deid.literal(q.name) ~ ' and level = ' ~ levels[q.name] ~ ' group by original_value)' -%}
    {%- if default.count(slice) != 1 -%}
      {{ exceptions.raise_compiler_error("model " ~ dbt_deid._current_node_name() ~ ": spark__released_levels_flags_sql found the hierarchy slice of " ~ q.name ~ " " ~ default.count(slice) ~ " time(s) in the default form, expected once; this is a bug of dbt_deid (the Spark form no longer matches the default form); nothing was published") }}
    {%- endif -%}
    {%- do out.append(out.pop().replace(slice, '(select original_value, deid_lo__, deid_hi__ from deid_slices__ where qi_name = ' ~ dbt_deid.literal(q.name) ~ ')')) -%}
    {%- do wanted.append('(qi_name = ' ~ dbt_deid.literal(q.name) ~ ' and level = ' ~ levels[q.name] ~ ')') -%}
  {%- endfor -%}
  {%- if not wanted -%}{{ return(default) }}{%- endif -%}
  {%- set slices = 'select qi_name, original_value, min(generalized_value) as deid_lo__, max(generalized_value) as deid_hi__ from '
      ~ hierarchy ~ ' where ' ~ wanted | join(' or ') ~ ' group by qi_name, original_value' -%}
  {{ return('(with deid_slices__ as (' ~ dbt_deid.cte_computed_once(slices) ~ ') ' ~ out[0][1:]) }}
{%- endmacro %}

{#- The select-list items summing the flags of released_levels_flags_sql over `prefix`:
    `level_mismatches_<i>` per QI. -#}
{% macro released_levels_sums_sql(cfg, prefix) -%}
  {%- set sums = [] -%}
  {%- for q in cfg.qis -%}
    {%- do sums.append('coalesce(sum(' ~ prefix ~ 'deid_level_mismatch_' ~ loop.index ~ '__), 0) as level_mismatches_' ~ loop.index) -%}
  {%- endfor -%}
  {{ return(sums | join(', ')) }}
{%- endmacro %}

{#- The gate released_levels for `truth` at `levels` (checked_levels): {gate, passed, failures
    (QIs whose values are not at their level), message, levels}. `mismatches` ({qi: records},
    from the gate table's scan, gate_input_unchanged_result) or none: counted here, one query. -#}
{% macro gate_released_levels_result(cfg, truth, levels, mismatches=none) -%}
  {%- set counts = mismatches -%}
  {%- if counts is none -%}
    {%- set sql = 'select ' ~ dbt_deid.released_levels_sums_sql(cfg, 't.') ~ ' from '
        ~ dbt_deid.released_levels_flags_sql(cfg, truth, dbt_deid.release_ref('deid_hierarchy'), levels) ~ ' as t' -%}
    {%- set row = run_query(sql).rows[0] -%}
    {%- set counts = {} -%}
    {%- for q in cfg.qis -%}{%- do counts.update({q.name: row[loop.index0] | int}) -%}{%- endfor -%}
  {%- endif -%}
  {%- set bad = [] -%}
  {%- for q in cfg.qis if (counts.get(q.name) or 0) | int > 0 -%}
    {%- do bad.append(q.name ~ ' (level ' ~ levels[q.name] ~ ': ' ~ counts[q.name] ~ ' record(s))') -%}
  {%- endfor -%}
  {{ return({'gate': 'released_levels', 'passed': bad | length == 0, 'failures': bad | length, 'levels': levels,
      'message': ('the checked release ' ~ truth ~ ' was not generalized at the released levels: true values not at their level in ' ~ bad | join(', ')
                  ~ '; it was built at other levels (deid_ola_levels or the settings changed since); rebuild the release with its upstream models (dbt build -s +deid_published)') if bad
                 else 'the checked release was generalized at the released levels (' ~ dbt_deid.levels_text(cfg, levels) ~ ')'}) }}
{%- endmacro %}
