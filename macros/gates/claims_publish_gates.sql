{#- The claims release's publish gates (seed 001, El Emam et al., the Heritage Health Prize
    release), run by the deid_publish materialization (gate set 'claims') on what it writes, so
    `dbt run`, `dbt build -s <publish model>`, excluded tests and severity overrides cannot
    publish a failing release. One result per gate: {gate, passed, failures, figure, limit,
    message} (figures and limits, never a quasi-identifier value or an id).

    * node_risk, attack1: the verdicts of deid_claims_release_gate ("Node Computation",
      equation 5: the release node's estimated high-risk share, or the upper limit of its 95%
      interval with gate_on: upper, <= MaxSup; "Empirical Evaluation", attack 1: simulated
      success rate <= attack_tau), re-checked against the limits of the current settings (a
      gate view built under other settings is refused);
    * claims_verdict_bound: the verdicts were computed under the settings of now, on the
      inputs as they are now (the fingerprints of deid_claims_verdict_inputs, read by LOLA and
      the attack; verdict_binding.sql), else refused naming `dbt build -s +tag:deid_claims`;
    * <table>_columns, <table>_rows: the written table has exactly the declared columns and
      exactly the rows of the table's bound input (the preprocessed patients, or D2)
      generalized now to the release node of the LOLA table (claims_generalize_sql over
      claims_levels_sql), as multisets (gate_published_matches_sql: no row held a different
      number of times; equal counts): so a deid_claims_generalized_<table> left at another
      node, or over other records, is not published;
    * patients_staged, claims_members_in_patients (checked by the claims table's model, which
      publishes both): the patients table was staged and passes its own gates, and every member
      id of the claims is a published patient;
    * patients_line, claims_line: a later version of the line is identical to the published one,
      or the line is restarted (kind_line.sql: claims versions cannot be combined yet). -#}
{% macro claims_publish_gate_results(cfg, table, candidate) -%}
  {{ return(dbt_deid.own(adapter.dispatch('claims_publish_gate_results', 'dbt_deid'))(cfg, table, candidate)) }}
{%- endmacro %}

{% macro default__claims_publish_gate_results(cfg, table, candidate) -%}
  {%- if table not in ['patients', 'claims'] -%}
    {{ exceptions.raise_compiler_error("model " ~ this.identifier ~ ": config deid_claims_table must be patients or claims, got " ~ table) }}
  {%- endif -%}
  {%- set results = dbt_deid.claims_verdict_results(cfg) -%}
  {#- the verdicts hold for what is published only under the settings and on the inputs they
      were computed with (review 9, G1; macros/gates/verdict_binding.sql) -#}
  {%- do results.append(dbt_deid.verdict_bound_result('claims')) -%}
  {%- do results.extend(dbt_deid.claims_table_gate_results(cfg, table, candidate)) -%}
  {#- the line: a later version is published only when identical or restarted (kind_line.sql) -#}
  {%- do results.append(dbt_deid.kind_line_gate_result('claims', table, candidate, this.incorporate(type='table'), dbt_deid.claims_relation(cfg[table]))) -%}
  {{ return(results) }}
{%- endmacro %}

{#- The gates of the staged patients table, checked when the claims table is published with it. -#}
{% macro claims_staged_gate_results(cfg, other, staged, candidate) -%}
  {%- set found = adapter.get_relation(staged.database, staged.schema, staged.identifier) -%}
  {%- if found is none -%}
    {{ return([{'gate': 'patients_staged', 'passed': false, 'failures': 1, 'figure': none, 'limit': none,
        'message': other.identifier ~ ' was not staged by its model: the two claims tables are one release, published together; select both (dbt build -s +tag:deid_claims)'}]) }}
  {%- endif -%}
  {%- set results = dbt_deid.claims_table_gate_results(cfg, 'patients', staged) -%}
  {%- do results.append(dbt_deid.kind_line_gate_result('claims', 'patients', staged, other, dbt_deid.claims_relation(cfg.patients))) -%}
  {%- set m = dbt_deid.ident(cfg.member_id) -%}
  {%- set orphans = run_query("select count(*) from " ~ candidate ~ " as c where not exists (select 1 from " ~ staged ~ " as p where p." ~ m ~ " = c." ~ m ~ ")").rows[0][0] -%}
  {%- do results.append({'gate': 'claims_members_in_patients', 'passed': orphans == 0, 'failures': orphans, 'figure': orphans, 'limit': 0,
      'message': (orphans ~ ' claim(s) whose member id is not a published patient') if orphans else 'every claim belongs to a published patient'}) -%}
  {{ return(results) }}
{%- endmacro %}

{#- The published columns of one claims table, in the order of claims_publish_sql. -#}
{% macro claims_published_columns(cfg, table) -%}
  {%- set qis = cfg.demographic_qis if table == 'patients' else cfg.claim_qis -%}
  {%- set cols = [cfg.member_id] -%}
  {%- for c in cfg.pseudonymize[table] + qis + cfg.release_columns[table] if c not in cols -%}
    {%- do cols.append(c) -%}
  {%- endfor -%}
  {{ return(cols) }}
{%- endmacro %}

{#- A value read back from the warehouse as a boolean (drivers return bool, int or text). -#}
{% macro _is_true(value) -%}
  {{ return(value is not none and (value | string | lower) in ['true', '1', 't']) }}
{%- endmacro %}

{% macro claims_verdict_results(cfg) -%}
  {%- set gate = ref('dbt_deid', 'deid_claims_release_gate') -%}
  {%- set t = run_query("select measure, node, value, " ~ adapter.quote('limit') ~ ", passed, message from " ~ gate ~ " where measure in ('node_risk', 'attack1')") -%}
  {%- set by = {} -%}
  {%- for r in t.rows -%}{%- do by.update({r[0]: r}) -%}{%- endfor -%}
  {%- set what = {'node_risk': ('upper 95% limit of the high-risk share' if cfg.gate_on == 'upper' else 'estimated high-risk share'), 'attack1': 'simulated attack 1 success rate'} -%}
  {%- set names = {'node_risk': 'MaxSup', 'attack1': 'attack_tau'} -%}
  {%- set results = [] -%}
  {%- for measure, limit in [('node_risk', cfg.max_suppression), ('attack1', cfg.attack_tau)] -%}
    {%- set r = by.get(measure) -%}
    {%- if r is none -%}
      {%- do results.append({'gate': measure, 'passed': false, 'failures': 1, 'figure': none, 'limit': limit,
          'message': measure ~ ': no row in deid_claims_release_gate (the assessment is incomplete)'}) -%}
    {%- else -%}
      {%- set figure = dbt_deid._json_number(r[2]) -%}
      {%- set stale = r[3] is none or ((r[3] | float) - (limit | float)) | abs > 1e-12 -%}
      {%- set ok = dbt_deid._is_true(r[4]) and figure is not none and figure <= limit and not stale -%}
      {%- if stale -%}
        {%- set message = measure ~ ': deid_claims_release_gate was built for ' ~ names[measure] ~ ' ' ~ r[3] ~ ', the setting is now ' ~ limit ~ '; rebuild it (dbt build -s +tag:deid_claims)' -%}
      {%- elif ok -%}
        {%- set message = measure ~ ': ' ~ what[measure] ~ ' ' ~ ('%.4g' | format(figure)) ~ ' <= ' ~ names[measure] ~ ' ' ~ limit ~ ' at node ' ~ r[1] -%}
      {%- elif r[5] is not none -%}
        {%- set message = measure ~ ': ' ~ r[5] -%}
      {%- elif figure is none -%}
        {%- set message = measure ~ ': ' ~ ('LOLA found no node' if measure == 'node_risk' else 'the simulated attack did not run') -%}
      {%- else -%}
        {%- set message = measure ~ ': ' ~ what[measure] ~ ' ' ~ ('%.4g' | format(figure)) ~ ' > ' ~ names[measure] ~ ' ' ~ limit ~ ' at node ' ~ r[1] -%}
      {%- endif -%}
      {%- do results.append({'gate': measure, 'passed': ok, 'failures': 0 if ok else 1, 'figure': figure, 'limit': limit, 'message': message}) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(results) }}
{%- endmacro %}

{#- The written table `rel` holds exactly the declared columns and the rows of the table's input
    (deid_claims_patients_preprocessed or deid_claims_d2, bound to the verdict by
    claims_verdict_bound) generalized to the release node of deid_claims_lola, computed here
    (the SQL deid_claims_generalized_<table> is built with): not the generalized table itself,
    which a build without deid_claims_levels or the generalized models leaves at an older
    node. -#}
{% macro claims_table_gate_results(cfg, table, rel) -%}
  {%- set expected = dbt_deid.claims_published_columns(cfg, table) -%}
  {%- set want = expected | map('lower') | list -%}
  {%- set got = adapter.get_columns_in_relation(rel) | map(attribute='name') | map('lower') | list -%}
  {%- set extra = got | reject('in', want) | list -%}
  {%- set absent = want | reject('in', got) | list -%}
  {%- set results = [{'gate': table ~ '_columns', 'passed': not extra and not absent, 'failures': extra | length + absent | length,
      'figure': got | length, 'limit': want | length,
      'message': table ~ ': ' ~ want | length ~ ' declared columns' ~ ((', undeclared ' ~ extra | join(', ')) if extra else '') ~ ((', missing ' ~ absent | join(', ')) if absent else '')}] -%}
  {%- if extra or absent -%}
    {%- do results.append({'gate': table ~ '_rows', 'passed': false, 'failures': 1, 'figure': none, 'limit': none,
        'message': table ~ ': rows not compared (the columns differ)'}) -%}
    {{ return(results) }}
  {%- endif -%}
  {%- set base = ref('dbt_deid', 'deid_claims_patients_preprocessed' if table == 'patients' else 'deid_claims_d2') -%}
  {%- set levels = '(' ~ dbt_deid.claims_levels_sql(cfg, ref('dbt_deid', 'deid_claims_lola')) ~ ') as lv' -%}
  {%- set src = '(' ~ dbt_deid.claims_generalize_sql(cfg, table, base, ref('dbt_deid', 'deid_claims_hierarchy'), levels) ~ ') as g' -%}
  {%- set cols = expected | map('string') | list -%}
  {#- the project's multiset-equality proof (gate_published_matches_sql, as the discharge
      publish step proves it): the row patterns whose counts differ, duplicates counted -#}
  {%- set r = run_query("select (select count(*) from " ~ rel ~ "), (select count(*) from " ~ src ~ "),"
      ~ " (select coalesce(max(differing_patterns), 0) from (" ~ dbt_deid.gate_published_matches_sql(rel, src, cols) ~ ") as d)").rows[0] -%}
  {%- set ok = r[0] == r[1] and r[2] == 0 -%}
  {%- do results.append({'gate': table ~ '_rows', 'passed': ok, 'failures': 0 if ok else r[2] + (0 if r[0] == r[1] else 1),
      'figure': r[0] | int, 'limit': r[1] | int,
      'message': (table ~ ': exactly the ' ~ r[1] ~ ' rows of ' ~ base.identifier ~ ' generalized to the release node of deid_claims_lola') if ok
        else (table ~ ': ' ~ r[0] ~ ' rows written, ' ~ base.identifier ~ ' generalized to the release node of deid_claims_lola has ' ~ r[1] ~ '; ' ~ r[2] ~ ' distinct row(s) held a different number of times by the two (duplicates counted); rebuild the release (dbt build -s +tag:deid_claims)')}) -%}
  {{ return(results) }}
{%- endmacro %}
