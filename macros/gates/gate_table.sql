{#- The gate table (deid_gate_results): the release's gate set computed once per build, over the
    checked truth (deid_suppressed), and read by everything else (issue 33, item 2; docs/gate-once.md):
    the dbt tests (plain failing-rows queries, test deid_gate), the publish materialization
    (release_publish_results), the history row, the report and `python -m dbt_deid summary`.

    One row per gate verdict: a passing gate has one row; a failing gate with a combination or
    column dimension (k_anonymity, exact_k_anonymity, column_suppression_cap) has one row per
    failing combination or column. Columns: gate_order, gate, combination, column_name, passed,
    failures, message (figures and limits, counts and names only, never a quasi-identifier
    value), and the fingerprints that bind the verdicts to what they were computed on:
    settings_md5 (the release's settings JSON), input_hash (the source's fingerprint, taken by
    input_unchanged when the table was computed and equal there to the input snapshot's),
    the input snapshot's fingerprint and what the report shows of the input (input_rows,
    snapshot_hash, input_relation, input_columns, package_version: the node
    deid_input_fingerprint before 0.3.0, folded here; issue 33, item 3), checked_hash
    (every column of deid_suppressed: checked_fingerprint.sql), released_levels (the level of every QI, JSON {qi: level}, that the gate released_levels proved the checked
    release was generalized at: the levels the publish step formats the cells with and the
    history records; review 9, G4), working_hashes (the fingerprints of the release plan and
    the hierarchy, JSON {table: hash}: the gate working_tables, working_tables_gate.sql;
    review 9b), plan_format and gate_set (the package's plan format and the gates the table
    holds a verdict of, comma-separated: the publish step refuses a table of another format and
    requires the gates the code of now computes, read_gate_table; review 12, H1), code_digest
    (the md5 of the package's code, dbt_deid.code_digest: the publish step refuses a table
    other code computed; review 12 final, M1) and invocation_id. -#}

{#- The fingerprints that bind the gate table: {settings_md5, input_hash, checked_hash,
    released_levels, working_hashes}, the input snapshot's ({input_rows, snapshot_hash,
    input_relation, input_columns, package_version}) and the code's ({plan_format: this
    package's dbt_deid.plan_format(), gate_set: the gates it writes, release_gate_names, as
    text; review 12, H1 and L2}). `checked` is truth's fingerprint when a
    gate query took it already (input_unchanged's checked_fingerprint), else none: truth is
    fingerprinted here. `levels` ({qi: level}) is what the gate released_levels checked
    (checked_levels). `snapshot` ({rows, hash}) is the input snapshot's fingerprint
    input_unchanged compared with the source's (its snapshot_fingerprint). -#}
{% macro gate_table_binding(cfg, truth, input_fingerprint, checked=none, levels=none, snapshot=none) -%}
  {{ return({'settings_md5': dbt_deid.settings_md5(), 'input_hash': input_fingerprint.hash,
             'checked_hash': (checked if checked is not none else dbt_deid.checked_fingerprint(truth)).hash,
             'released_levels': tojson(levels, sort_keys=true) if levels is not none else none,
             'working_hashes': tojson(dbt_deid.working_tables_fingerprints(cfg), sort_keys=true),
             'input_rows': snapshot.rows if snapshot is not none else none,
             'snapshot_hash': snapshot.hash if snapshot is not none else none,
             'input_relation': dbt_deid.release_source(cfg) | string,
             'input_columns': dbt_deid.released_source_columns(cfg) | join(', '),
             'package_version': dbt_deid.package_version(),
             'plan_format': dbt_deid.plan_format(),
             'code_digest': dbt_deid.code_digest(),
             'gate_set': dbt_deid.release_gate_names(cfg, dbt_deid.release_plan('propagation')) | join(', ')}) }}
{%- endmacro %}

{#- The MD5 of the release's settings JSON, as the history records it (release_manifest). -#}
{% macro settings_md5() -%}
  {{ return(local_md5(tojson((dbt_deid.release_settings() or {}), sort_keys=true))) }}
{%- endmacro %}

{#- The gate table's rows as SQL from the results of release_gate_results and the binding;
    every failing gate's message is logged once ("dbt_deid gate <gate> FAILED: ..."). -#}
{% macro gate_table_sql(results, binding) -%}
  {%- set s = dbt.type_string() -%}
  {%- set rows = [] -%}
  {%- for r in results -%}
    {%- if not r.passed -%}{%- do log("dbt_deid gate " ~ r.gate ~ " FAILED: " ~ r.message, info=true) -%}{%- endif -%}
    {%- set details = (r.get('details') or []) if not r.passed else [] -%}
    {%- for d in (details if details else [{'failures': r.failures, 'message': r.message}]) -%}
      {%- do rows.append([r.gate, d.get('combination'), d.get('column_name'), r.passed, d.failures, d.message]) -%}
    {%- endfor -%}
  {%- endfor -%}
  {%- set selects = [] -%}
  {%- for gate, combination, column, passed, failures, message in rows -%}
    {%- do selects.append("select " ~ loop.index ~ " as gate_order, cast(" ~ dbt_deid.literal(gate) ~ " as " ~ s ~ ") as gate, cast("
        ~ (dbt_deid.literal(combination) if combination is not none else 'null') ~ " as " ~ s ~ ") as combination, cast("
        ~ (dbt_deid.literal(column) if column is not none else 'null') ~ " as " ~ s ~ ") as column_name, "
        ~ ('true' if passed else 'false') ~ " as passed, cast(" ~ (failures | int) ~ " as " ~ dbt.type_bigint() ~ ") as failures, cast("
        ~ dbt_deid.literal(message) ~ " as " ~ s ~ ") as message") -%}
  {%- endfor -%}
  {%- if selects | length == 0 -%}
    {%- do selects.append("select cast(null as " ~ dbt.type_int() ~ ") as gate_order, cast(null as " ~ s ~ ") as gate, cast(null as " ~ s ~ ") as combination, cast(null as " ~ s ~ ") as column_name, cast(null as " ~ dbt.type_boolean() ~ ") as passed, cast(null as " ~ dbt.type_bigint() ~ ") as failures, cast(null as " ~ s ~ ") as message where 1 = 0") -%}
  {%- endif -%}
  select g.*,
    cast({{ dbt_deid.literal(binding.settings_md5) if binding.settings_md5 is not none else 'null' }} as {{ s }}) as settings_md5,
    cast({{ dbt_deid.literal(binding.input_hash) if binding.input_hash is not none else 'null' }} as {{ s }}) as input_hash,
    cast({{ dbt_deid.literal(binding.checked_hash) if binding.checked_hash is not none else 'null' }} as {{ s }}) as checked_hash,
    cast({{ dbt_deid.literal(binding.released_levels) if binding.get('released_levels') is not none else 'null' }} as {{ s }}) as released_levels,
    cast({{ dbt_deid.literal(binding.working_hashes) if binding.get('working_hashes') is not none else 'null' }} as {{ s }}) as working_hashes,
    cast({{ (binding.input_rows | int) if binding.get('input_rows') is not none else 'null' }} as {{ dbt.type_bigint() }}) as input_rows,
    cast({{ dbt_deid.literal(binding.snapshot_hash) if binding.get('snapshot_hash') is not none else 'null' }} as {{ s }}) as snapshot_hash,
    cast({{ dbt_deid.literal(binding.input_relation) if binding.get('input_relation') is not none else 'null' }} as {{ s }}) as input_relation,
    cast({{ dbt_deid.literal(binding.input_columns) if binding.get('input_columns') is not none else 'null' }} as {{ s }}) as input_columns,
    cast({{ dbt_deid.literal(binding.package_version) if binding.get('package_version') is not none else 'null' }} as {{ s }}) as package_version,
    cast({{ (binding.plan_format | int) if binding.get('plan_format') is not none else 'null' }} as {{ dbt.type_bigint() }}) as plan_format,
    cast({{ dbt_deid.literal(binding.gate_set) if binding.get('gate_set') is not none else 'null' }} as {{ s }}) as gate_set,
    cast({{ dbt_deid.literal(binding.code_digest) if binding.get('code_digest') is not none else 'null' }} as {{ s }}) as code_digest,
    cast({{ dbt_deid.literal(invocation_id) }} as {{ s }}) as invocation_id
  from (
    {{ selects | join('\n    union all\n    ') }}
  ) as g
{%- endmacro %}

{#- The publish step's gate set for a discharge release's `candidate` (the materialization,
    deid_checks='release'): the proof that the candidate is the checked release, the verdicts
    read from the gate table, and combined_releases evaluated now. Returns the results
    ({gate, passed, failures, message}); the `gate_table` result carries the input fingerprint
    (`input_fingerprint`) the history row reuses, so the source is fingerprinted once here.

    * published_columns: the candidate's columns are exactly the declared ones;
    * published_matches_checked: the candidate's released tuples are exactly the multiset of
      deid_suppressed's (so the verdicts on deid_suppressed that depend on the released tuples,
      k-anonymity, MaxSup, the caps, the row count, hold for the candidate; the exact check and
      input_unchanged were computed on deid_suppressed itself);
    * gate_table: deid_gate_results exists and was computed for the current settings, the
      release input as it is now and deid_suppressed as it is now; otherwise the release is
      refused naming what to rebuild (its verdicts are not read; input_unchanged runs here to
      give the changed records' count);
    * the gate table's verdicts, one result per gate (failing rows' messages joined);
    * history_figures (when the gate table is fresh): the figures the history row records
      (deid_diagnostics' risk_summary and information_loss rows) were computed with this gate table
      (macros/publish/history_figures.sql);
    * combined_releases, evaluated here and not in the gate table: it reads the per-record store
      of earlier published versions, which a publish after the gate table was computed (`dbt
      build -s deid_published` twice) changes, and it must see the store as the swap finds it. -#}
{% macro release_publish_results(cfg, candidate) -%}
  {{ return(dbt_deid.own(adapter.dispatch('release_publish_results', 'dbt_deid'))(cfg, candidate)) }}
{%- endmacro %}

{% macro default__release_publish_results(cfg, candidate) -%}
  {%- set truth = dbt_deid.checked_release() -%}
  {%- set table = dbt_deid.release_ref('deid_gate_results') -%}
  {%- set results = [] -%}
  {%- if not dbt_deid.can_inspect(truth) -%}
    {%- do results.append({'gate': 'gate_table', 'passed': false, 'failures': 1,
        'message': truth ~ ' (the checked release) is missing: build the release with its upstream models (dbt build -s +' ~ this.identifier ~ ')'}) -%}
    {{ return(results) }}
  {%- endif -%}
  {%- set fin = dbt_deid.publish_input_fingerprint(cfg, table) -%}
  {%- set read = dbt_deid.read_gate_table(table, truth, fin, cfg) -%}
  {#- in the invocation that computed the gate table, the candidate is compared with the checked
      release's pattern table (proven there to be the checked release grouped; neither can have
      changed since within the invocation), not with the records again. The checked cells are
      shown at the levels the gate table recorded (proven from the data there), not at the
      levels the candidate was formatted with: a candidate formatted at other levels differs. -#}
  {%- set patterns = dbt_deid.release_ref('deid_suppressed_patterns') if read.this_invocation else none -%}
  {%- do results.extend(dbt_deid.candidate_matches_results(cfg, candidate, truth, patterns, read.levels)) -%}
  {%- do results.append(read.status) -%}
  {%- if read.working is not none -%}
    {#- the plan, the hierarchy and the input snapshot the publish step reads are those the gate
        table was computed with (working_tables_gate.sql; review 9b) -#}
    {%- do results.append(read.working) -%}
  {%- endif -%}
  {%- do results.extend(read.verdicts) -%}
  {%- if read.status.passed -%}
    {#- the figures the history records were computed with this gate table (history_figures) -#}
    {%- do results.append(dbt_deid.history_figures_result(read.invocation)) -%}
  {%- endif -%}
  {%- if not read.status.passed -%}
    {#- the table's verdicts are not read: say, with its figure, whether the input changed
        since the checked release was computed (the usual cause: the publish model rebuilt
        alone over a source that changed) -#}
    {%- do results.append(dbt_deid.gate_input_unchanged_result(truth, cfg)) -%}
  {%- endif -%}
  {%- do results.append(dbt_deid.gate_combined_releases_result(cfg, candidate, truth)) -%}
  {{ return(results) }}
{%- endmacro %}

{#- The release input's fingerprint ({rows, hash}) the publish step checks the gate table
    against. When the gate table was computed in this dbt invocation (a whole `dbt build`) and
    agrees with the snapshot (on every row, the gate table's input_hash, the source's
    fingerprint taken in its input_unchanged scan, equals snapshot_hash, the snapshot's
    fingerprint taken with it; before 0.3.0 read from the table deid_input_fingerprint),
    that fingerprint: the source is fingerprinted once per build (issue 33, item 2). Otherwise
    (a gate table from an earlier invocation: `dbt build -s deid_published`, or written by an
    earlier dbt_deid, without snapshot_hash) the input as it is now, so a source that changed
    since is refused.
    Within one invocation the source is therefore not fingerprinted again: a source rewritten
    by another process during the build is not detected here. What is published is still the
    checked release (published_matches_checked), which every gate passed. -#}
{% macro publish_input_fingerprint(cfg, table) -%}
  {%- if dbt_deid.can_inspect(table) and 'snapshot_hash' in (adapter.get_columns_in_relation(table) | map(attribute='name') | map('lower') | list) -%}
    {%- set rows = run_query("select s.input_rows, s.snapshot_hash from (select min(g.input_rows) as input_rows, max(g.input_rows) as most_rows,"
        ~ " min(g.snapshot_hash) as snapshot_hash, max(g.snapshot_hash) as last_hash, count(*) as verdicts,"
        ~ " sum(case when g.invocation_id = " ~ dbt_deid.literal(invocation_id) ~ " and g.input_hash = g.snapshot_hash then 1 else 0 end) as bound"
        ~ " from " ~ table ~ " as g) as s"
        ~ " where s.verdicts > 0 and s.bound = s.verdicts and s.input_rows = s.most_rows and s.snapshot_hash = s.last_hash").rows -%}
    {%- if rows | length == 1 and rows[0][1] is not none -%}
      {{ return({'rows': rows[0][0], 'hash': rows[0][1]}) }}
    {%- endif -%}
  {%- endif -%}
  {{ return(dbt_deid.table_fingerprint(dbt_deid.release_source(cfg), dbt_deid.released_source_columns(cfg))) }}
{%- endmacro %}

{#- published_columns and published_matches_checked for `candidate` against `truth`, or, given
    `patterns` (truth's pattern table with the count n, proven equal to truth grouped by the
    gate table computed in this invocation), against `patterns`: the same multiset of released
    tuples, from the pattern rows instead of a scan of the records. -#}
{#- `levels` ({qi: level}: the levels the gate table recorded) formats the checked cells; none:
    the levels as they are now (published_value_kinds). -#}
{% macro candidate_matches_results(cfg, candidate, truth, patterns=none, levels=none) -%}
  {%- set results = [] -%}
  {%- set expected = dbt_deid.published_columns(cfg) | map('lower') | list -%}
  {%- set got = adapter.get_columns_in_relation(candidate) | map(attribute='name') | map('lower') | list -%}
  {%- set extra = [] -%}{%- set absent = [] -%}
  {%- for c in got -%}{%- if c not in expected -%}{%- do extra.append(c) -%}{%- endif -%}{%- endfor -%}
  {%- for c in expected -%}{%- if c not in got -%}{%- do absent.append(c) -%}{%- endif -%}{%- endfor -%}
  {%- do results.append({'gate': 'published_columns', 'passed': extra | length == 0 and absent | length == 0,
      'failures': extra | length + absent | length,
      'message': 'published columns: ' ~ (expected | length) ~ ' declared (' ~ cfg.released_qis | length ~ ' quasi-identifiers, ' ~ cfg.pass_through | length ~ ' pass-through, ' ~ cfg.sensitive | length ~ ' sensitive)' ~ ((', undeclared ' ~ extra | join(', ')) if extra else '') ~ ((', missing ' ~ absent | join(', ')) if absent else '')}) -%}
  {%- if patterns is not none -%}
    {%- set rows = run_query(dbt_deid.gate_published_matches_sql(candidate, patterns, cfg.released_qis, cfg, none, 'n', levels)).rows -%}
  {%- else -%}
    {%- set rows = run_query(dbt_deid.gate_published_matches_sql(candidate, truth, cfg.released_qis, cfg, none, none, levels)).rows -%}
  {%- endif -%}
  {%- do results.append({'gate': 'published_matches_checked', 'passed': rows | length == 0, 'failures': rows | length,
      'message': ('the published table differs from the checked release in ' ~ rows[0][0] ~ ' released tuple(s)') if rows else 'the published table holds exactly the checked release'}) -%}
  {{ return(results) }}
{%- endmacro %}

{#- Read the gate table `table` for the publish step: {status: the gate_table result (with
    `expected`: the gates this release requires, release_gate_names), verdicts:
    one result per gate, this_invocation: true when it was computed in this dbt invocation,
    levels: the released levels it recorded ({qi: level}), none when it is not fresh, working:
    the gate working_tables' result when it is fresh (gate_working_tables_result), else none}. `fin` is the release input's fingerprint ({rows, hash}; from publish_input_fingerprint: taken now, or in this invocation). The
    verdicts are read only when the table is fresh: computed for the current settings, this
    input, `truth` as it is now and the released levels as they are now (checked_levels of
    `cfg`: with `generalization.search: ola`, deid_ola_levels as it is now, which the publish
    step formats the cells with and the history records; review 9, G4), by this package (its
    plan_format, package_version and code digest; review 12, H1, and review 12 final, M1), and holding a verdict of every gate the
    code of now computes for this release and its plan (release_gate_names: a gate an older
    dbt_deid did not have, or a deleted row, is a refusal naming it, not a pass). -#}
{% macro read_gate_table(table, truth, fin, cfg) -%}
  {%- set rebuild = 'dbt build -s +' ~ this.identifier -%}
  {%- set problems = [] -%}
  {%- set rows = [] -%}
  {%- set this_invocation = [] -%}
  {%- set levels = {} -%}
  {%- set expected = dbt_deid.release_gate_names(cfg, dbt_deid.release_plan('propagation')) -%}
  {%- if not dbt_deid.can_inspect(table) -%}
    {%- do problems.append('the gate table ' ~ table ~ ' is missing') -%}
  {%- else -%}
    {#- a gate table computed before it recorded the levels has no released_levels: refused -#}
    {%- set table_columns = adapter.get_columns_in_relation(table) | map(attribute='name') | map('lower') | list -%}
    {%- set rows = run_query("select gate, passed, failures, message, settings_md5, input_hash, checked_hash, invocation_id, "
        ~ ('released_levels' if 'released_levels' in table_columns else 'cast(null as ' ~ dbt.type_string() ~ ')') ~ ", "
        ~ ('working_hashes' if 'working_hashes' in table_columns else 'cast(null as ' ~ dbt.type_string() ~ ')') ~ ", "
        ~ ('plan_format' if 'plan_format' in table_columns else 'cast(null as ' ~ dbt.type_bigint() ~ ')') ~ ", "
        ~ ('package_version' if 'package_version' in table_columns else 'cast(null as ' ~ dbt.type_string() ~ ')') ~ ", "
        ~ ('code_digest' if 'code_digest' in table_columns else 'cast(null as ' ~ dbt.type_string() ~ ')') ~ " from " ~ table ~ " order by gate_order").rows -%}
    {%- if rows | length == 0 -%}
      {%- do problems.append('the gate table ' ~ table ~ ' holds no verdict') -%}
    {%- else -%}
      {%- set first = rows[0] -%}
      {#- computed by this package (review 12, H1): a gate table an older dbt_deid computed has
          no plan format, or another one, and lacks the gates added since (propagation); its
          package_version is compared too -#}
      {%- set version = dbt_deid.package_version() -%}
      {%- if first[10] is none or (first[10] | int) != dbt_deid.plan_format() or first[11] != version -%}
        {%- do problems.append('the gate table ' ~ table ~ ' was computed by another version of dbt_deid (plan format ' ~ (first[10] if first[10] is not none else 'none') ~ ', package ' ~ (first[11] if first[11] is not none else 'unknown') ~ '; this package: plan format ' ~ dbt_deid.plan_format() ~ ', version ' ~ version ~ '), whose gates and plan are not those of this package') -%}
      {#- and by this code (review 12 final, M1): a fix of a gate's SQL changes neither the
          gate set nor the plan format; the code digest (dbt_deid.code_digest) does -#}
      {%- elif first[12] != dbt_deid.code_digest() -%}
        {%- do problems.append('the gate table ' ~ table ~ ' was computed by other dbt_deid code (code digest ' ~ (first[12] if first[12] is not none else 'none') ~ ', this package ' ~ dbt_deid.code_digest() ~ ': an upgrade or a change of the package since), whose gates are not those of this code') -%}
      {%- endif -%}
      {#- every gate the code of now computes for this release and its plan has a verdict
          (release_gate_names; review 12, H1: a missing gate is a refusal, not a pass) -#}
      {%- set present = [] -%}{%- for r in rows -%}{%- do present.append(r[0]) -%}{%- endfor -%}
      {%- set missing = [] -%}
      {%- for g in expected -%}
        {%- if g not in present -%}{%- do missing.append(g) -%}{%- endif -%}
      {%- endfor -%}
      {%- if missing -%}
        {%- do problems.append('the gate table ' ~ table ~ ' holds no verdict of the gate(s) ' ~ missing | join(', ') ~ ', which this release requires (computed by another version of dbt_deid, or edited)') -%}
      {%- endif -%}
      {%- if first[4] != dbt_deid.settings_md5() -%}
        {%- do problems.append('the gate table ' ~ table ~ ' was computed with other settings (settings_md5 ' ~ first[4] ~ ', now ' ~ dbt_deid.settings_md5() ~ ')') -%}
      {%- endif -%}
      {%- if first[5] != fin.hash -%}
        {%- do problems.append('the release input changed since the gate table ' ~ table ~ ' was computed (input fingerprint ' ~ first[5] ~ ', now ' ~ fin.hash ~ ')') -%}
      {%- endif -%}
      {#- the levels: recorded (proven from the checked release by the gate released_levels)
          and equal to the levels the publish step would format with and record -#}
      {%- set now = dbt_deid.checked_levels(cfg) -%}
      {%- if first[8] is none -%}
        {%- do problems.append('the gate table ' ~ table ~ ' records no released levels (computed by an earlier version of dbt_deid)') -%}
      {%- else -%}
        {%- set recorded = fromjson(first[8]) -%}
        {%- set moved = [] -%}
        {%- for q in cfg.qis -%}
          {%- if recorded.get(q.name) is none or (recorded[q.name] | int) != now[q.name] -%}
            {%- do moved.append(q.name ~ ' ' ~ recorded.get(q.name, 'none') ~ ' (now ' ~ now[q.name] ~ ')') -%}
          {%- endif -%}
        {%- endfor -%}
        {%- if moved -%}
          {%- do problems.append('the released levels changed since the gate table ' ~ table ~ ' was computed (the checked release is at ' ~ moved | join(', ')
              ~ (': deid_ola_levels was rebuilt since' if dbt_deid.ola_config() is not none else '') ~ ')') -%}
        {%- else -%}
          {%- do levels.update(recorded) -%}
        {%- endif -%}
      {%- endif -%}
      {#- computed in this invocation (a whole `dbt build`, or the gate table run with the publish
          model): the checked release is upstream of the gate table, built before it and not
          rebuilt since, so it is not fingerprinted again (the same reasoning, and the same limit,
          as the input fingerprint: publish_input_fingerprint) -#}
      {%- do this_invocation.append(first[7] == invocation_id) -%}
      {%- if not this_invocation[0] and first[6] != dbt_deid.checked_fingerprint(truth).hash -%}
        {%- do problems.append(truth ~ ' changed since the gate table ' ~ table ~ ' was computed') -%}
      {%- endif -%}
    {%- endif -%}
  {%- endif -%}
  {%- set status = {'gate': 'gate_table', 'passed': problems | length == 0, 'failures': problems | length, 'input_fingerprint': fin, 'expected': expected,
      'message': (problems | join('; ') ~ ': the verdicts do not hold for what would be published; rebuild the release with its upstream models (' ~ rebuild ~ ')') if problems
                 else 'gate table ' ~ table ~ ' computed by this package for these settings, this input, this release and these levels (invocation ' ~ rows[0][7] ~ '), with a verdict of each of the ' ~ expected | length ~ ' gates this release requires'} -%}
  {%- set current = this_invocation | length > 0 and this_invocation[0] -%}
  {%- if problems -%}{{ return({'status': status, 'verdicts': [], 'this_invocation': current, 'invocation': none, 'levels': none, 'working': none}) }}{%- endif -%}
  {%- set order = [] -%}{%- set by_gate = {} -%}
  {%- for r in rows -%}
    {%- if r[0] not in by_gate -%}{%- do order.append(r[0]) -%}{%- do by_gate.update({r[0]: []}) -%}{%- endif -%}
    {%- do by_gate[r[0]].append(r) -%}
  {%- endfor -%}
  {%- set verdicts = [] -%}
  {%- for gate in order -%}
    {%- set gr = by_gate[gate] -%}
    {%- set failing = [] -%}
    {%- for r in gr if r[1] not in [true, 1, 'true', 'True'] -%}{%- do failing.append(r) -%}{%- endfor -%}
    {%- set n = [] -%}{%- for r in gr -%}{%- do n.append(r[2] | int) -%}{%- endfor -%}
    {%- set messages = [] -%}{%- for r in (failing if failing else gr) -%}{%- do messages.append(r[3]) -%}{%- endfor -%}
    {%- do verdicts.append({'gate': gate, 'passed': failing | length == 0, 'failures': n | sum, 'message': messages | join('; ')}) -%}
  {%- endfor -%}
  {%- set working = dbt_deid.gate_working_tables_result(cfg, rows[0][9], rows[0][5], current) -%}
  {{ return({'status': status, 'verdicts': verdicts, 'this_invocation': current, 'invocation': rows[0][7], 'levels': levels, 'working': working}) }}
{%- endmacro %}
