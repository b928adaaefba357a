{#- Run every release gate (the queries of gates.sql) and return one result per gate:
    {gate, passed, failures, message, details}. Messages give the figure and the limit, with
    counts and combination or column names only, never a quasi-identifier value; `details` (for
    the gates with a combination or column dimension) gives each failing one its row of the gate
    table.

    `published` is the table whose released columns are checked and `truth` holds the true
    values at the released level; the gate table model (deid_gate_results) passes
    deid_suppressed for both, once per build. The publish step does not run these: it proves the
    candidate is that table and reads the verdicts (gate_table.sql). Runs only at execution time
    (an empty list otherwise, and on a fresh warehouse under compile/docs/ls:
    dbt_deid.can_inspect). -#}
{% macro release_gate_results(cfg, published, truth) -%}
  {{ return(dbt_deid.own(adapter.dispatch('release_gate_results', 'dbt_deid'))(cfg, published, truth)) }}
{%- endmacro %}

{% macro default__release_gate_results(cfg, published, truth) -%}
  {%- if not (dbt_deid.can_inspect(truth) and dbt_deid.can_inspect(published)) -%}{{ return([]) }}{%- endif -%}
  {%- set results = [] -%}
  {%- set k = cfg.k -%}

  {#- The gates that depend only on the released tuples read the pattern table of the checked
      release (deid_suppressed_patterns, one row per released and true tuple with its count n)
      once it is proven to be `published` grouped (one scan); otherwise they read the records. -#}
  {#- the levels the checked release must have been generalized at (the gate table records them;
      the gate released_levels proves them from the data in input_unchanged's scan) -#}
  {%- set levels = dbt_deid.checked_levels(cfg) -%}
  {#- the input snapshot deid_input fingerprinted once per build, here (the node
      deid_input_fingerprint before 0.3.0; issue 33, item 3): input_unchanged compares it
      with the source's fingerprint, the row count reads its rows, the gate table records it -#}
  {%- set snapshot = dbt_deid.table_fingerprint(dbt_deid.release_snapshot(), dbt_deid.released_source_columns(cfg)) -%}
  {#- the suppression propagation pairs of the plan (El Emam et al. 2011 Table 4): the gate
      propagation counts, in the same scan, the records that show a level whose source level
      is suppressed (propagation_gate.sql; review 11 final, M2) -#}
  {%- set pairs = dbt_deid.release_plan('propagation') -%}
  {%- set unchanged = dbt_deid.gate_input_unchanged_result(truth, cfg, true, snapshot, published == truth, levels, pairs) -%}
  {%- set problems = dbt_deid.checked_patterns_problems(cfg, published, unchanged.get('patterns_fingerprint')) -%}
  {%- set rel = published if problems else dbt_deid.release_ref('deid_suppressed_patterns') -%}
  {%- set n = none if problems else 'n' -%}
  {%- do results.append(unchanged) -%}
  {%- do results.append(dbt_deid.gate_released_levels_result(cfg, truth, levels, unchanged.get('level_mismatches'))) -%}
  {%- set propagated = dbt_deid.gate_propagation_result(truth, pairs, unchanged.get('propagation_misses')) -%}
  {%- if propagated is not none -%}{%- do results.append(propagated) -%}{%- endif -%}
  {#- the plan whose combinations the gates below verify was resolved from these settings
      (plan_settings_gate.sql; review 9 final, F7) -#}
  {%- do results.append(dbt_deid.gate_plan_settings_result()) -%}
  {%- do results.append(dbt_deid.gate_k_anonymity_result(rel, cfg.verified_combinations, k, n)) -%}
  {%- do results.append(dbt_deid.gate_exact_table_result(cfg, problems)) -%}
  {%- do results.append(dbt_deid.gate_max_suppression_result(rel, cfg.max_suppression, cfg.released_qis, n)) -%}
  {%- do results.append(dbt_deid.gate_column_caps_result(rel, dbt_deid.release_caps(cfg), n)) -%}
  {%- do results.append(dbt_deid.gate_row_count_result(rel, cfg, n, '(select cast(' ~ (snapshot.rows | int) ~ ' as ' ~ dbt.type_bigint() ~ ') as input_rows) as deid_snapshot__')) -%}
  {%- do results.extend(dbt_deid.attribute_disclosure_results(cfg, truth)) -%}
  {%- if dbt_deid.small_areas_enabled() -%}
    {%- do results.append(dbt_deid.gate_small_areas_result(published)) -%}
  {%- endif -%}
  {{ return(results) }}
{%- endmacro %}

{#- One gate each: run its query (gates.sql) and return {gate, passed, failures, message}: the
    one formatter of each gate's message. -#}
{#- With `fingerprint` (the gate table), on an engine with dbt_deid.fingerprint_select_sql, the
    same query also fingerprints `truth` (every column, table_fingerprint's value): the result's
    `checked_fingerprint` ({rows, hash}), so the gate table's checked_hash costs no scan of its
    own. -#}
{#- With `input_fingerprint` ({rows, hash}: the input snapshot's fingerprint, taken by the gate
    table, release_gate_results; before 0.3.0 the table deid_input_fingerprint), the
    source is fingerprinted now over the same columns (released_source_columns), in the same
    scan where the engine allows it, and must equal it: a snapshot from an earlier invocation
    (`dbt retry`, `--exclude deid_input`), or a source changed since the snapshot (pass-through
    columns included) or during the build, is refused. The result's `input_fingerprint`
    ({rows, hash}) is the source's, which the gate table records as input_hash (the value a
    publish in a later invocation compares with the source then), its `snapshot_fingerprint`
    the snapshot's it was compared with (the gate table's input_rows and snapshot_hash). With `patterns` (the gate
    table, `truth` being the table its gates check), the same scan gives `truth`'s weighted
    fingerprint over the pattern columns (`patterns_fingerprint`), the proof that
    deid_suppressed_patterns is `truth` grouped (checked_patterns_problems). With `propagation`
    (the plan's [source, target] pairs), the same scan counts the gate propagation's records
    (`propagation_misses`, one count per pair). -#}
{% macro gate_input_unchanged_result(truth, cfg, fingerprint=false, input_fingerprint=none, patterns=false, levels=none, propagation=none) -%}
  {%- set columns = adapter.get_columns_in_relation(truth) | map(attribute='name') | list if fingerprint else [] -%}
  {%- set fingerprinted = fingerprint and dbt_deid.fingerprint_select_sql(columns) is not none -%}
  {%- set source_columns = dbt_deid.released_source_columns(cfg) if fingerprinted and input_fingerprint is not none else none -%}
  {%- set patterned = fingerprinted and patterns and dbt_deid.weighted_fingerprint_select_sql(['n'], '', 'n', ['r', 'f']) is not none -%}
  {%- set levelled = fingerprinted and levels is not none -%}
  {#- the engine's work_mem for this statement too (a full join of the source and the checked
      release: 2 GB of temporary files at 2.4 million records with PostgreSQL's default) -#}
  {%- set header = dbt_deid.release_sql_header() -%}
  {%- set table = run_query((header ~ '\n' if header else '') ~ dbt_deid.gate_input_unchanged_sql(truth, cfg, columns if fingerprinted else none, source_columns, dbt_deid.pattern_columns(cfg) if patterned else none, levels if levelled else none, propagation if fingerprinted else none)) -%}{%- set rows = table.rows -%}
  {%- set got = {} -%}
  {%- if fingerprinted -%}
    {%- for name in table.column_names -%}{%- do got.update({name | lower: rows[0][loop.index0]}) -%}{%- endfor -%}
  {%- endif -%}
  {%- set changed = [] -%}
  {%- if fingerprinted -%}
    {%- if (rows[0][0] | int) > 0 -%}{%- do changed.append(rows[0][0] | int) -%}{%- endif -%}
  {%- elif rows -%}
    {%- do changed.append(rows[0][0]) -%}
  {%- endif -%}
  {%- set stale = [] -%}
  {%- set source = [] -%}
  {%- if input_fingerprint is not none -%}
    {%- if source_columns is not none -%}
      {%- do source.append({'rows': got.source_rows, 'hash': got.source_fingerprint}) -%}
    {%- else -%}
      {%- do source.append(dbt_deid.table_fingerprint(dbt_deid.release_source(cfg), dbt_deid.released_source_columns(cfg))) -%}
    {%- endif -%}
    {%- if input_fingerprint.hash is none or input_fingerprint.hash != source[0].hash -%}{%- do stale.append(1) -%}{%- endif -%}
  {%- endif -%}
  {%- set message = (changed[0] ~ ' record(s) of the release input are missing from, or changed since, the computed release; rebuild it with its upstream models (dbt build -s +deid_published)') if changed else 'the release was computed from the input as it is now' -%}
  {%- if stale -%}
    {%- set message = 'the input snapshot deid_input is not the source as it is now (built in an earlier invocation, or the source changed during the build); rebuild it with its upstream models (dbt build -s +deid_published)' ~ (('; ' ~ message) if changed else '') -%}
  {%- endif -%}
  {%- set result = {'table': table, 'gate': 'input_unchanged', 'passed': (changed | length == 0) and not stale, 'failures': changed | length + stale | length,
      'message': message} -%}
  {%- if fingerprinted -%}{%- do result.update({'checked_fingerprint': {'rows': rows[0][1], 'hash': rows[0][2]}}) -%}{%- endif -%}
  {%- if source -%}{%- do result.update({'input_fingerprint': source[0], 'snapshot_fingerprint': input_fingerprint}) -%}{%- endif -%}
  {%- if patterned -%}{%- do result.update({'patterns_fingerprint': {'rows': got.pattern_rows, 'hash': got.pattern_fingerprint}}) -%}{%- endif -%}
  {%- if levelled -%}
    {#- the gate released_levels' counts, from the same scan (released_levels_gate.sql) -#}
    {%- set mismatches = {} -%}
    {%- for q in cfg.qis -%}{%- do mismatches.update({q.name: got['level_mismatches_' ~ loop.index] | int}) -%}{%- endfor -%}
    {%- do result.update({'level_mismatches': mismatches}) -%}
  {%- endif -%}
  {%- if fingerprinted and propagation -%}
    {#- the gate propagation's counts, one per pair, from the same scan (propagation_gate.sql) -#}
    {%- set misses = [] -%}
    {%- for p in propagation -%}{%- do misses.append(got['propagation_misses_' ~ loop.index] | int) -%}{%- endfor -%}
    {%- do result.update({'propagation_misses': misses}) -%}
  {%- endif -%}
  {{ return(result) }}
{%- endmacro %}

{% macro gate_k_anonymity_result(published, combinations, k, count_column=none) -%}
  {%- set table = run_query(dbt_deid.gate_k_anonymity_sql(published, combinations, k, count_column)) -%}{%- set rows = table.rows -%}
  {%- set parts = [] -%}
  {%- set details = [] -%}
  {%- for r in rows -%}
    {%- do parts.append(r[0] ~ ': ' ~ r[2] ~ ' class(es) smaller than k = ' ~ k ~ ' (smallest ' ~ r[4] ~ ', ' ~ r[3] ~ ' records)') -%}
    {%- do details.append({'combination': r[0], 'failures': r[2], 'message': 'k-anonymity: ' ~ parts[-1]}) -%}
  {%- endfor -%}
  {{ return({'table': table, 'gate': 'k_anonymity', 'details': details, 'passed': rows | length == 0, 'failures': rows | length,
      'message': ('k-anonymity: ' ~ parts | join('; ')) if parts else ('k-anonymity: every class of ' ~ combinations | length ~ ' combination(s) has at least k = ' ~ k ~ ' records')}) }}
{%- endmacro %}

{% macro gate_max_suppression_result(published, max_suppression, columns, count_column=none) -%}
  {%- set table = run_query(dbt_deid.gate_max_suppression_sql(published, max_suppression, columns, count_column)) -%}{%- set rows = table.rows -%}
  {{ return({'table': table, 'gate': 'max_suppression', 'passed': rows | length == 0, 'failures': rows | length,
      'message': ('MaxSup ' ~ dbt_deid.percent(rows[0][2]) ~ ' > ' ~ dbt_deid.percent(max_suppression) ~ ' (' ~ rows[0][1] ~ ' of ' ~ rows[0][0] ~ ' records have a suppressed quasi-identifier)') if rows else ('MaxSup: at most ' ~ dbt_deid.percent(max_suppression) ~ ' of records have a suppressed quasi-identifier')}) }}
{%- endmacro %}

{% macro gate_column_caps_result(published, caps, count_column=none) -%}
  {%- set table = run_query(dbt_deid.gate_column_caps_sql(published, caps, count_column)) -%}{%- set rows = table.rows -%}
  {%- set parts = [] -%}
  {%- set details = [] -%}
  {%- for r in rows -%}
    {%- do parts.append(r[0] ~ ' ' ~ dbt_deid.percent(r[2]) ~ ' > cap ' ~ dbt_deid.percent(r[3])) -%}
    {%- do details.append({'column_name': r[0], 'failures': r[1], 'message': 'column caps: ' ~ parts[-1]}) -%}
  {%- endfor -%}
  {{ return({'table': table, 'gate': 'column_suppression_cap', 'details': details, 'passed': rows | length == 0, 'failures': rows | length,
      'message': ('column caps: ' ~ parts | join('; ')) if parts else ('column caps: ' ~ caps | length ~ ' column(s) within their cap')}) }}
{%- endmacro %}

{% macro gate_row_count_result(published, cfg, count_column=none, fingerprint=none) -%}
  {%- set table = run_query(dbt_deid.gate_row_count_sql(published, cfg, count_column, fingerprint)) -%}{%- set rows = table.rows -%}
  {{ return({'table': table, 'gate': 'row_count', 'passed': rows | length == 0, 'failures': rows | length,
      'message': ('row count: ' ~ rows[0][0] ~ ' rows, the release input has ' ~ rows[0][1]) if rows else 'row count: as many rows as the release input'}) }}
{%- endmacro %}

{% macro gate_small_areas_result(published) -%}
  {%- set table = run_query(dbt_deid.own(adapter.dispatch('test_deid_small_areas', 'dbt_deid'))(published)) -%}{%- set rows = table.rows -%}
  {%- set n = [0] -%}{%- for r in rows -%}{%- do n.append(r[3]) -%}{%- endfor -%}
  {{ return({'table': table, 'gate': 'small_areas', 'passed': rows | length == 0, 'failures': rows | length,
      'message': ('small areas: ' ~ n | sum ~ ' records from areas flagged by the El Emam et al. 2010 model would be published') if rows else 'small areas: no record from a flagged area is published'}) }}
{%- endmacro %}

{#- The failed results of release_gate_results, as one message. -#}
{% macro gate_failure_message(results) -%}
  {%- set failed = [] -%}
  {%- for r in results -%}{%- if not r.passed -%}{%- do failed.append('[' ~ r.gate ~ '] ' ~ r.message) -%}{%- endif -%}{%- endfor -%}
  {{ return(failed | join('\n  ')) }}
{%- endmacro %}

{#- A share as a percentage with one decimal ("28.5%"). -#}
{% macro percent(value) -%}
  {{ return(('%.1f' | format((value | float) * 100)) ~ '%') }}
{%- endmacro %}
