{#- The core release's gates. Every gate of the package is in this folder: the OLA, claims and
    text releases' tests (ola_gates.sql, claims_gates.sql, text_gates.sql), the claims and text
    publish materialization's gate sets (claims_publish_gates.sql, text_publish_gates.sql) and
    the repeated-release gate (combined_releases.sql). Each gate is one macro returning a
    query whose rows are the failures (no row = pass): counts, limits and combination or column
    names only, never quasi-identifier values. For the discharge release they run once per
    build, in the gate table model deid_gate_results (gate_results.sql, gate_table.sql), which
    the gate tests (gate_test.sql), the publish materialization, the history and the report
    read; the generic tests below run them on any table. -#}

{#- k-anonymity (El Emam et al. 2011 "Measuring the Probability of Re-identification"): every combination
    has no class smaller than k, a suppressed value being its own category (sufficient for the
    guarantee). -#}
{% macro gate_k_anonymity_sql(relation, combinations, k, count_column=none) -%}
  {{ return(dbt_deid.own(adapter.dispatch('gate_k_anonymity_sql', 'dbt_deid'))(relation, combinations, k, count_column)) }}
{%- endmacro %}

{% macro default__gate_k_anonymity_sql(relation, combinations, k, count_column=none) -%}
  select combination, k, classes_below_k as small_classes, records_above_tau as records_in_small_classes, smallest_class
  from ({{ dbt_deid.risk_summary_sql(relation, combinations, k, 1.0 / k, 'gate', count_column) }}) as s
  where smallest_class < {{ k }}
{%- endmacro %}

{#- The definitive check: every record's true values are consistent with at least k released
    records (a suppressed cell is consistent with anything). prune_k = k: only the records
    that could belong to a true tuple below k are read again (see exact_consistent_sql), and
    the tuples below k come back with their exact counts, so the verdict and the figures are
    the full computation's. `relation` holds `<qi>` and `<qi>__generalized`. -#}
{% macro gate_exact_sql(relation, combinations, k) -%}
  {{ return(dbt_deid.own(adapter.dispatch('gate_exact_sql', 'dbt_deid'))(relation, combinations, k)) }}
{%- endmacro %}

{% macro default__gate_exact_sql(relation, combinations, k) -%}
  select combination, k, min_consistent, records_below_k
  from ({{ dbt_deid.exact_risk_summary_sql(relation, combinations, k, none, k) }}) as s
  where records_below_k > 0
{%- endmacro %}

{#- MaxSup (El Emam et al. 2012 "Base Algorithm"): the share of records with any suppressed QI is at most
    max_suppression. With `count_column`, `relation` is a pattern table (each row counts that
    many records): the same figures from fewer rows (the gates below take it likewise). -#}
{% macro gate_max_suppression_sql(relation, max_suppression, columns, count_column=none) -%}
  {{ return(dbt_deid.own(adapter.dispatch('gate_max_suppression_sql', 'dbt_deid'))(relation, max_suppression, columns, count_column)) }}
{%- endmacro %}

{% macro default__gate_max_suppression_sql(relation, max_suppression, columns, count_column=none) -%}
  {%- set any_null = [] -%}
  {%- for c in columns -%}{%- do any_null.append(dbt_deid.ident(c) ~ ' is null') -%}{%- endfor -%}
  {%- set one = dbt_deid.ident(count_column) if count_column else '1' -%}
  {%- set total = 'sum(' ~ dbt_deid.ident(count_column) ~ ')' if count_column else 'count(*)' -%}
  select records, records_with_suppression, share_records_with_suppression, {{ max_suppression }} as max_suppression
  from (
    select {{ total }} as records,
      sum(case when {{ any_null | join(' or ') }} then {{ one }} else 0 end) as records_with_suppression,
      1.0 * sum(case when {{ any_null | join(' or ') }} then {{ one }} else 0 end) / {{ dbt_deid.nonzero(total) }} as share_records_with_suppression
    from {{ relation }}
  ) as s
  where share_records_with_suppression > {{ max_suppression }}
{%- endmacro %}

{#- Per-column cap (El Emam et al. 2009 (CJHP): 15%): the share of a column's cells suppressed is at most its
    cap. `caps` is a list of [column, cap]. -#}
{% macro gate_column_caps_sql(relation, caps, count_column=none) -%}
  {{ return(dbt_deid.own(adapter.dispatch('gate_column_caps_sql', 'dbt_deid'))(relation, caps, count_column)) }}
{%- endmacro %}

{% macro default__gate_column_caps_sql(relation, caps, count_column=none) -%}
  {%- set one = dbt_deid.ident(count_column) if count_column else '1' -%}
  {%- set total = 'sum(' ~ dbt_deid.ident(count_column) ~ ')' if count_column else 'count(*)' -%}
  {%- if caps | length == 0 -%}
  select 'none' as column_name, 0 as suppressed_cells, 0.0 as share_suppressed, 1.0 as cap where 1 = 0
  {%- else -%}
  select column_name, suppressed_cells, share_suppressed, cap from (
    {%- for c, cap in caps %}
    select {{ dbt_deid.literal(c) }} as column_name,
      sum(case when {{ dbt_deid.ident(c) }} is null then {{ one }} else 0 end) as suppressed_cells,
      1.0 * sum(case when {{ dbt_deid.ident(c) }} is null then {{ one }} else 0 end) / {{ dbt_deid.nonzero(total) }} as share_suppressed,
      {{ cap }} as cap
    from {{ relation }}
    {%- if not loop.last %} union all{% endif %}
    {%- endfor %}
  ) as s
  where share_suppressed > cap
  {%- endif -%}
{%- endmacro %}

{#- Records are never silently dropped: `relation` has as many rows as the release input (the
    source, or its sample when the release sets `sample`). -#}
{#- Not dbt_utils.equal_rowcount: that is a test, and the publish materialization must run this query itself on the candidate table (and the package has no dbt-utils dependency). -#}
{#- `fingerprint`: the release input's row count is read from this relation's input_rows (the
    gate table passes a one-row subquery of the input snapshot's row count, taken with its
    fingerprint, which input_unchanged proves equal to the source's) instead of counting the
    input again; only for a release without `sample` (the snapshot holds the whole source). -#}
{% macro gate_row_count_sql(relation, cfg, count_column=none, fingerprint=none) -%}
  {{ return(dbt_deid.own(adapter.dispatch('gate_row_count_sql', 'dbt_deid'))(relation, cfg, count_column, fingerprint)) }}
{%- endmacro %}

{#- coalesce: an empty table sums to NULL, and NULL <> n would pass; an empty fingerprint table
    (-1) fails. -#}
{% macro default__gate_row_count_sql(relation, cfg, count_column=none, fingerprint=none) -%}
  select m.records as model_records, s.records as source_records
  from (select {{ ('coalesce(sum(' ~ dbt_deid.ident(count_column) ~ '), 0)') if count_column else 'count(*)' }} as records from {{ relation }}) as m
  {%- if fingerprint is not none and cfg.sample is none %}
  cross join (select coalesce(max(input_rows), -1) as records from {{ fingerprint }}) as s
  {%- else %}
  cross join (select count(*) as records from {{ dbt_deid.source_input(cfg) }} as src) as s
  {%- endif %}
  where m.records <> s.records
{%- endmacro %}

{#- The release was computed from the input as it is now: every record of the release input is
    in `truth` (deid_suppressed) with the same original quasi-identifier values. Catches a
    publish model rebuilt alone (`dbt build -s deid_published`) over a source that changed since
    the suppression was computed. Each source column is compared once, with the `__original`
    column that holds its values (original_value_sources: QIs released from one source column
    share it). Counts only. -#}
{% macro gate_input_unchanged_sql(truth, cfg, fingerprint_columns=none, source_columns=none, pattern_columns=none, levels=none, propagation=none) -%}
  {{ return(dbt_deid.own(adapter.dispatch('gate_input_unchanged_sql', 'dbt_deid'))(truth, cfg, fingerprint_columns, source_columns, pattern_columns, levels, propagation)) }}
{%- endmacro %}

{#- With `fingerprint_columns` (every column of `truth`; on an engine with
    dbt_deid.fingerprint_select_sql), one row (changed_records, row_count, fingerprint): the
    count and `truth`'s fingerprint (table_fingerprint's value) from one scan of it, a full
    outer join so that every row of `truth` is hashed (the gate table's checked_hash). With
    `source_columns` too (released_source_columns), the same scan reads the whole source (its
    sample's records flagged, deid_sampled__) and adds (source_rows, source_fingerprint): the
    source's fingerprint over those columns, the value table_fingerprint gives on the source
    alone (what the gate table records as input_hash and compares with the snapshot's), so
    the source is not read again to fingerprint it (issue 33: at most 3 reads per build). With
    `pattern_columns` (dbt_deid.pattern_columns; on an engine with
    weighted_fingerprint_select_sql), also (pattern_rows, pattern_fingerprint): `truth`'s
    weighted fingerprint over those columns, which equals deid_suppressed_patterns' (weighted
    by n) when that table is `truth` grouped, so the proof needs no scan of `truth` of its own
    (checked_patterns_problems). With `levels` too ({qi: level}: checked_levels), also
    `level_mismatches_<i>` per QI (the i-th of cfg.qis): the records of `truth` whose true value
    is not their original generalized at that level (the gate released_levels,
    released_levels_gate.sql), in the same scan. With `propagation` ([source, target] pairs
    of the release plan: release_plan('propagation')), also `propagation_misses_<i>` per pair:
    the records of `truth` whose source cell is suppressed and whose target cell is not (the
    gate propagation, propagation_gate.sql), in the same scan. -#}
{% macro default__gate_input_unchanged_sql(truth, cfg, fingerprint_columns=none, source_columns=none, pattern_columns=none, levels=none, propagation=none) -%}
  {%- set rid = dbt_deid.ident(cfg.record_id) -%}
  {%- set miss = dbt_deid.literal(cfg.missing_label) -%}
  {%- set sources = dbt_deid.original_value_sources(cfg) -%}
  {%- set changed = [] -%}
  {%- for q in cfg.qis if sources[q.name] == q.name -%}
    {%- do changed.append('not (coalesce(cast(src.' ~ dbt_deid.ident(q.column) ~ ' as ' ~ dbt.type_string() ~ '), ' ~ miss ~ ') = t.' ~ dbt_deid.ident(q.name ~ '__original') ~ ')') -%}
  {%- endfor -%}
  {%- if fingerprint_columns is none %}
  select changed_records from (
    select sum(case when t.{{ rid }} is null or {{ changed | join(' or ') }} then 1 else 0 end) as changed_records
    from {{ dbt_deid.source_input(cfg) }} as src
    left join {{ truth }} as t on t.{{ rid }} = src.{{ rid }}
  ) as s
  where changed_records > 0
  {%- else %}
  {%- set whole = source_columns is not none and cfg.sample is not none -%}
  {%- set in_release = 'src.deid_source__ = 1' ~ (' and src.deid_sampled__ = 1' if whole else '') %}
  {%- set checked = '(select *, 1 as deid_present__ from ' ~ truth ~ ')' if levels is none else dbt_deid.released_levels_flags_sql(cfg, truth, dbt_deid.release_ref('deid_hierarchy'), levels) -%}
  {%- set mismatch_columns = [] -%}
  {%- for q in cfg.qis if levels is not none -%}{%- do mismatch_columns.append('level_mismatches_' ~ loop.index) -%}{%- endfor -%}
  {%- for p in (propagation or []) -%}{%- do mismatch_columns.append('propagation_misses_' ~ loop.index) -%}{%- endfor %}
  select coalesce(changed_records, 0) as changed_records, row_count, fingerprint{{ ', source_rows, source_fingerprint' if source_columns is not none }}{{ ', pattern_rows, pattern_fingerprint' if pattern_columns is not none }}{{ ', ' ~ mismatch_columns | join(', ') if mismatch_columns }} from (
    select sum(case when {{ in_release }} and (t.{{ rid }} is null or {{ changed | join(' or ') }}) then 1 else 0 end) as changed_records,
      {%- if levels is not none %}
      {{ dbt_deid.released_levels_sums_sql(cfg, 't.') }},
      {%- endif %}
      {%- if propagation %}
      {{ dbt_deid.propagation_sums_sql(propagation, 't.') }},
      {%- endif %}
      {{ dbt_deid.fingerprint_select_sql(fingerprint_columns, 't.', 't.deid_present__ = 1') }}
      {%- if source_columns is not none %},
      {{ dbt_deid.fingerprint_select_sql(source_columns, 'src.', 'src.deid_source__ = 1', ['source_rows', 'source_fingerprint']) }}
      {%- endif %}
      {%- if pattern_columns is not none %},
      {{ dbt_deid.weighted_fingerprint_select_sql(pattern_columns, 't.', 'case when t.deid_present__ = 1 then 1 else 0 end', ['pattern_rows', 'pattern_fingerprint']) }}
      {%- endif %}
    {%- if whole %}
    from (select *, 1 as deid_source__, case when {{ dbt_deid.sample_condition(cfg) }} then 1 else 0 end as deid_sampled__ from {{ dbt_deid.release_source(cfg) }} as s0) as src
    full outer join {{ checked }} as t on t.{{ rid }} = src.{{ rid }} and src.deid_sampled__ = 1
    {%- else %}
    from (select *, 1 as deid_source__ from {{ dbt_deid.source_input(cfg) if source_columns is none else dbt_deid.release_source(cfg) }} as s0) as src
    full outer join {{ checked }} as t on t.{{ rid }} = src.{{ rid }}
    {%- endif %}
  ) as s
  {%- endif %}
{%- endmacro %}

{#- The published table is the release the gates checked: the same multiset of released
    quasi-identifier tuples as `truth` (deid_suppressed), so the exact check made there holds
    for what is written. -#}
{% macro gate_published_matches_sql(published, truth, columns, cfg=none, count_column=none, truth_count_column=none, levels=none) -%}
  {{ return(dbt_deid.own(adapter.dispatch('gate_published_matches_sql', 'dbt_deid'))(published, truth, columns, cfg, count_column, truth_count_column, levels)) }}
{%- endmacro %}

{#- With `cfg` (a discharge release), the checked cells are compared as published
    (published_value_sql: numbers, periods, intervals), the mapping the publish step applied.
    With `count_column`, `published` is a pattern table (each row counts that many records;
    the gate table's proof that deid_suppressed_patterns is the checked release grouped). With
    `truth_count_column`, `truth` is a pattern table (the publish step's proof against
    deid_suppressed_patterns, in the invocation that computed the gate table). With `levels`
    ({qi: level}: the levels the gate table recorded, proven from the checked release), the
    checked cells are shown at those levels, not at the levels as they are now (review 9, G4:
    a candidate formatted with another level's intervals then differs). -#}
{% macro default__gate_published_matches_sql(published, truth, columns, cfg=none, count_column=none, truth_count_column=none, levels=none) -%}
  {%- set kinds = dbt_deid.published_value_kinds(cfg, levels) if cfg is not none else {} -%}
  {#- the checked side's cells formatted once per distinct value (published_value_lookup.sql) -#}
  {%- set lookup = dbt_deid.published_value_lookup(cfg, kinds, truth, 'deid_checked__', columns) if kinds else {'exprs': {}, 'joins': []} -%}
  {%- set cols = [] -%}{%- set shown = [] -%}
  {%- for c in columns -%}
    {%- do cols.append(dbt_deid.ident(c)) -%}
    {%- do shown.append((lookup.exprs[c] if lookup.joins else dbt_deid.ident(c)) ~ ' as ' ~ dbt_deid.ident(c)) -%}
  {%- endfor -%}
  {%- set checked = 'deid_checked__.' if lookup.joins else '' -%}
  select count(*) as differing_patterns from (
    select {{ cols | join(', ') }}
    from (
      select {{ cols | join(', ') }}, {{ dbt_deid.ident(count_column) if count_column else 1 }} as in_published, 0 as in_checked from {{ published }}
      union all
      select {{ shown | join(', ') }}, 0 as in_published, {{ (checked ~ dbt_deid.ident(truth_count_column)) if truth_count_column else 1 }} as in_checked from {{ truth }}{{ ' as deid_checked__' if lookup.joins else '' }}
      {%- for j in lookup.joins %}
      {{ j }}
      {%- endfor %}
    ) as u
    group by {{ cols | join(', ') }}
    having sum(in_published) <> sum(in_checked)
  ) as d
  having count(*) > 0
{%- endmacro %}

{#- Generic tests for any table (the gate fixtures, a consumer's own models): each is its gate's
    query, a plain failing-rows query (counts, limits and combination or column names only),
    limits from the release unless given. The release's own gate tests read the gate table
    instead (gate_test.sql). -#}

{% test deid_k_anonymity(model, combinations=none, k=none) %}
  {{ dbt_deid.own(adapter.dispatch('test_deid_k_anonymity', 'dbt_deid'))(model, combinations, k) }}
{% endtest %}

{% macro default__test_deid_k_anonymity(model, combinations, k) %}
  {%- set cfg = dbt_deid.release_config() if dbt_deid.release_enabled() else none -%}
  {%- if cfg is none and (combinations is none or k is none) %}
  select 'no release declared in var deid_release' as error
  {%- else -%}
  {%- set combos = combinations if combinations is not none else cfg.verified_combinations -%}
  {%- set k = k if k is not none else cfg.k -%}
  {{ dbt_deid.gate_k_anonymity_sql(model, combos, k) }}
  {%- endif %}
{% endmacro %}

{% test deid_exact_k_anonymity(model, combinations=none, k=none) %}
  {{ dbt_deid.own(adapter.dispatch('test_deid_exact_k_anonymity', 'dbt_deid'))(model, combinations, k) }}
{% endtest %}

{% macro default__test_deid_exact_k_anonymity(model, combinations, k) %}
  {%- set cfg = dbt_deid.release_config() if dbt_deid.release_enabled() else none -%}
  {%- if cfg is none and (combinations is none or k is none) %}
  select 'no release declared in var deid_release' as error
  {%- else -%}
  {%- set combos = combinations if combinations is not none else cfg.verified_combinations -%}
  {%- set k = k if k is not none else cfg.k -%}
  {{ dbt_deid.gate_exact_sql(model, combos, k) }}
  {%- endif %}
{% endmacro %}

{% test deid_max_suppression(model, max_suppression=none, columns=none) %}
  {{ dbt_deid.own(adapter.dispatch('test_deid_max_suppression', 'dbt_deid'))(model, max_suppression, columns) }}
{% endtest %}

{% macro default__test_deid_max_suppression(model, max_suppression, columns) %}
  {%- set cfg = dbt_deid.release_config() if dbt_deid.release_enabled() else none -%}
  {%- if cfg is none and (max_suppression is none or columns is none) %}
  select 'no release declared in var deid_release' as error
  {%- else -%}
  {%- set limit = max_suppression if max_suppression is not none else cfg.max_suppression -%}
  {%- set cols = columns if columns is not none else cfg.released_qis -%}
  {{ dbt_deid.gate_max_suppression_sql(model, limit, cols) }}
  {%- endif %}
{% endmacro %}

{% test deid_column_suppression_cap(model, caps=none) %}
  {{ dbt_deid.own(adapter.dispatch('test_deid_column_suppression_cap', 'dbt_deid'))(model, caps) }}
{% endtest %}

{% macro default__test_deid_column_suppression_cap(model, caps) %}
  {%- set cfg = dbt_deid.release_config() if dbt_deid.release_enabled() else none -%}
  {%- if cfg is none and caps is none %}
  select 'no release declared in var deid_release' as error
  {%- else -%}
  {%- set pairs = [] -%}
  {%- if caps is not none -%}
    {%- for c, cap in caps.items() -%}{%- do pairs.append([c, cap]) -%}{%- endfor -%}
  {%- else -%}
    {%- set pairs = dbt_deid.release_caps(cfg) -%}
  {%- endif -%}
  {{ dbt_deid.gate_column_caps_sql(model, pairs) }}
  {%- endif %}
{% endmacro %}

{% test deid_row_count_matches_source(model) %}
  {{ dbt_deid.own(adapter.dispatch('test_deid_row_count_matches_source', 'dbt_deid'))(model) }}
{% endtest %}

{% macro default__test_deid_row_count_matches_source(model) %}
  {%- set cfg = dbt_deid.release_config() if dbt_deid.release_enabled() else none -%}
  {%- if cfg is none %}
  select 'no release declared in var deid_release' as error
  {%- elif flags.EMPTY %}
  {#- `dbt build --empty`: the model reads no row while the release input is not a ref, so
      nothing is counted (the publish materialization releases nothing under --empty) #}
  select 0 as model_records, 0 as source_records where 1 = 0
  {%- else -%}
  {{ dbt_deid.gate_row_count_sql(model, cfg) }}
  {%- endif %}
{% endmacro %}

{#- The per-column caps of a release as [column, cap] pairs (released QIs with a cap). -#}
{% macro release_caps(cfg) -%}
  {%- set pairs = [] -%}
  {%- for q in cfg.qis -%}
    {%- if q.cap is not none and q.name in cfg.released_qis -%}{%- do pairs.append([q.name, q.cap]) -%}{%- endif -%}
  {%- endfor -%}
  {{ return(pairs) }}
{%- endmacro %}

{#- `expression`, or NULL when it is 0 (a ratio over no rows is NULL, not an error). dbt_utils.safe_divide does the same; one line does not justify a dbt-utils dependency for every consumer. -#}
{% macro nonzero(expression) -%}
  {{ return('nullif(' ~ expression ~ ', 0)') }}
{%- endmacro %}
