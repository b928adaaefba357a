{#- The binding of the claims and text releases' verdicts to what they assessed (review 9, G1),
    as the discharge release's gate table is bound (gate_table.sql: settings_md5, input_hash,
    checked_hash, invocation_id).

    The claims verdict (LOLA and the simulated attack, El Emam et al. 2012) and the text verdict
    (the risk assessment, Scaiano, El Emam et al. 2016) are computed by Python models. Their
    inputs are fingerprinted just before, by the model deid_<kind>_verdict_inputs (one row per
    relation: its row count and table fingerprint, the md5 of the release's settings and the
    invocation id; verdict_inputs_sql), which every verdict model reads: each verdict model
    records the md5 of the settings it ran with (computed by the core from the settings JSON it
    was given) and the invocation id of the fingerprints it read (inputs_invocation_id).

    At publish (verdict_bound_result, gate claims_verdict_bound / text_verdict_bound) the
    release is refused, naming `dbt build -s +tag:deid_<kind>`, unless the settings now, the
    settings of the fingerprints and the settings each verdict model ran with are the same,
    every verdict model read these fingerprints, and every fingerprinted relation is as it
    was. The fingerprints cover the release's raw inputs, the tables the verdict models read
    and the tables what is published is computed from; the model refuses to be built unless
    every package model upstream of it is built in the same invocation (verdict_chain_check),
    so the relations it fingerprints are computed from each other, not left by other builds.
    The fingerprints are a table, never a view (review r9-final, F1): a view would compute them
    anew at every read at publish, so each relation would be compared with itself; the model
    refuses any other materialization and the gate any relation that is not a table. -#}

{#- The md5 of a kind's settings (var deid_claims_release / deid_text_release as JSON with
    sorted keys): the history's settings_md5 (kind_release_manifest), and what the verdict
    models compute from the settings JSON they were given
    (dbt_deid.dbt_side.glue.frames.settings_md5). -#}
{% macro kind_settings_md5(kind) -%}
  {{ return(local_md5(tojson(var('deid_' ~ kind ~ '_release', {}), sort_keys=true))) }}
{%- endmacro %}

{#- The relations a kind's verdict is bound to, [(name, relation)], each a dependency of the
    calling model: claims: the patients and claims inputs, the tables LOLA and the attack read
    (the preprocessed patients, D1, D2 with and without its ids, the hierarchies, the attack 2
    population); text: the documents, annotations and detections inputs, the staged documents
    and detections (what is published is computed from them) and the counts the assessment
    reads. -#}
{% macro verdict_relations(kind) -%}
  {{ return(dbt_deid.own(adapter.dispatch('verdict_relations', 'dbt_deid'))(kind)) }}
{%- endmacro %}

{% macro default__verdict_relations(kind) -%}
  {%- set out = [] -%}
  {%- if kind == 'claims' -%}
    {%- set cfg = dbt_deid.claims_release_config() -%}
    {%- do out.append(('input:patients', dbt_deid.claims_relation(cfg.patients))) -%}
    {%- do out.append(('input:claims', dbt_deid.claims_relation(cfg.claims))) -%}
    {%- for m in ['deid_claims_patients_preprocessed', 'deid_claims_d1', 'deid_claims_d2', 'deid_claims_d2_ids',
                  'deid_claims_hierarchy', 'deid_claims_attack2_population'] -%}
      {%- do out.append((m, ref('dbt_deid', m))) -%}
    {%- endfor -%}
  {%- elif kind == 'text' -%}
    {%- set cfg = dbt_deid.text_release_config() -%}
    {%- for t in ['documents', 'annotations', 'detections'] -%}
      {%- do out.append(('input:' ~ t, dbt_deid.text_input_relation(cfg, t))) -%}
    {%- endfor -%}
    {%- for m in ['deid_text_documents', 'deid_text_detections', 'deid_text_direct_counts', 'deid_text_quasi_counts',
                  'deid_text_corpus_size'] -%}
      {%- do out.append((m, ref('dbt_deid', m))) -%}
    {%- endfor -%}
  {%- else -%}
    {{ exceptions.raise_compiler_error("dbt_deid verdict_relations: kind must be claims or text, got " ~ kind) }}
  {%- endif -%}
  {{ return(out) }}
{%- endmacro %}

{#- The verdict models of a kind: the models that record which fingerprints they read. -#}
{% macro verdict_models(kind) -%}
  {{ return(['deid_claims_lola', 'deid_claims_attack'] if kind == 'claims' else ['deid_text_risk_assessment']) }}
{%- endmacro %}

{#- The SQL of deid_<kind>_verdict_inputs: one row per relation of verdict_relations, with
    relation_name, relation, row_count, fingerprint (table_fingerprint_sql over every column),
    settings_md5 (kind_settings_md5) and invocation_id. -#}
{% macro verdict_inputs_sql(kind) -%}
  {{ return(dbt_deid.own(adapter.dispatch('verdict_inputs_sql', 'dbt_deid'))(kind)) }}
{%- endmacro %}

{% macro default__verdict_inputs_sql(kind) -%}
  {%- set s = dbt.type_string() -%}
  {%- set rels = dbt_deid.verdict_relations(kind) -%}
  {#- a table, never a view (review r9-final, F1): read at publish, a view would compute the
      fingerprints of the relations as they are then, with this build's invocation id and
      settings md5, so every relation would match its "recorded" fingerprint and a stale
      verdict would publish; incremental and ephemeral are refused too (several builds' rows,
      no relation). The publish gate checks the relation's type as well (verdict_bound_result). -#}
  {%- if execute and config.get('materialized') != 'table' -%}
    {{ exceptions.raise_compiler_error("model " ~ this.identifier ~ ": must be materialized as table (it records the fingerprints of what the " ~ kind ~ " verdict assessed, as they were when the verdict was computed; no other materialization records them once per build: a view computes them anew at every read, so the publish gate " ~ kind ~ "_verdict_bound would compare each relation with itself), got +materialized: " ~ config.get('materialized') ~ "; remove the project's +materialized override for this model (or set +materialized: table on it)") }}
  {%- endif -%}
  {%- if execute and flags.WHICH in ['run', 'build'] -%}{%- do dbt_deid.verdict_chain_check(kind) -%}{%- endif -%}
  {%- for name, rel in rels %}
  {%- set cols = (adapter.get_columns_in_relation(rel) | map(attribute='name') | list) if execute else [] -%}
  {#- never a fingerprint of zero columns (the row count only): review 9 final, F8. A command
      that only compiles (`dbt compile`, `dbt docs generate`) renders a relation not built yet
      with null fingerprints: nothing is built or published from that SQL. -#}
  {%- if execute and not cols and not dbt_deid._compile_only_command() -%}{{ exceptions.raise_compiler_error("model " ~ model.name ~ ": " ~ name ~ " (" ~ rel ~ ") cannot be fingerprinted: dbt lists no column of it (a relation dbt cannot introspect: another catalog, a temporary view); make it a table dbt can read, in the target's database") }}{%- endif %}
select cast({{ dbt_deid.literal(name) }} as {{ s }}) as relation_name,
    cast({{ dbt_deid.literal(rel | string) }} as {{ s }}) as relation,
    {%- if cols %}
    cast(f.row_count as {{ dbt.type_bigint() }}) as row_count, cast(f.fingerprint as {{ s }}) as fingerprint,
    {%- else %}
    cast(null as {{ dbt.type_bigint() }}) as row_count, cast(null as {{ s }}) as fingerprint,
    {%- endif %}
    cast({{ dbt_deid.literal(dbt_deid.kind_settings_md5(kind)) }} as {{ s }}) as settings_md5,
    cast({{ dbt_deid.literal(invocation_id) }} as {{ s }}) as invocation_id
    {%- if cols %}
from ({{ dbt_deid.table_fingerprint_sql(rel, cols) }}) as f
    {%- endif %}
{%- if not loop.last %}
union all
{%- endif %}
  {%- endfor %}
{%- endmacro %}

{#- deid_<kind>_verdict_inputs is built only together with every package model upstream of it
    (`dbt build -s +tag:deid_<kind>`; in a segmented `python -m dbt_deid build`, in the same
    build: the runner names the whole selection in DBT_DEID_SEGMENTED_SELECTION): otherwise the relations it fingerprints could be left
    by other builds, one computed from records another was not (a count table older than the
    detections it counts), and the verdict read them as one state. -#}
{% macro verdict_chain_check(kind) -%}
  {#- the walk, and DBT_DEID_SEGMENTED_SELECTION honoured only in a segment of a segmented
      build (review 9 final, F3, F6): upstream_not_built, shared with the discharge releases'
      gate upstream_built -#}
  {%- set found = dbt_deid.upstream_not_built(model.unique_id) -%}
  {%- if found.left -%}
    {{ exceptions.raise_compiler_error("model " ~ model.name ~ ": the graph upstream of it is too large to check that every package model upstream was built with it (" ~ found.left ~ " node(s) left after 100,000 steps)") }}
  {%- endif -%}
  {%- if found.missing -%}
    {{ exceptions.raise_compiler_error("model " ~ model.name ~ ": fingerprints what the " ~ kind ~ " verdict assesses and is built only with every model upstream of it, in one invocation; not selected: " ~ (found.missing | join(', ')) ~ ". Build the release with its upstream models (dbt build -s +tag:deid_" ~ kind ~ ")" ~ ("; DBT_DEID_SEGMENTED_SELECTION ignored: " ~ found.ignored if found.ignored else "")) }}
  {%- endif -%}
{%- endmacro %}

{#- The publish gate <kind>_verdict_bound: {gate, passed, failures, figure, limit, message}.
    Passes when deid_<kind>_verdict_inputs was computed under the settings of now, every
    verdict model (verdict_models) ran with the settings of now and read those fingerprints
    (inputs_invocation_id), and every relation of verdict_relations has the fingerprint
    recorded. Otherwise the message names each difference (relation names and row counts,
    never a value) and the command that rebuilds the assessment. -#}
{% macro verdict_bound_result(kind) -%}
  {{ return(dbt_deid.own(adapter.dispatch('verdict_bound_result', 'dbt_deid'))(kind)) }}
{%- endmacro %}

{% macro default__verdict_bound_result(kind) -%}
  {%- set gate = kind ~ '_verdict_bound' -%}
  {%- set rebuild = 'dbt build -s +tag:deid_' ~ kind -%}
  {%- set inputs = ref('dbt_deid', 'deid_' ~ kind ~ '_verdict_inputs') -%}
  {%- set now_md5 = dbt_deid.kind_settings_md5(kind) -%}
  {%- set problems = [] -%}
  {%- set other_settings = [] -%}
  {%- set recorded = {} -%}
  {%- set snapshot = [] -%}
  {%- set stored = adapter.get_relation(inputs.database, inputs.schema, inputs.identifier) -%}
  {%- if stored is none -%}
    {%- do problems.append(inputs.identifier ~ ' (the fingerprints of what the verdict assessed) is missing') -%}
  {%- elif stored.type != 'table' -%}
    {#- a view (a +materialized override, or a relation replaced by hand) computes the
        fingerprints as the relations are now: each would be compared with itself (review
        r9-final, F1). Its rows are not read. -#}
    {%- do problems.append(inputs ~ ' (the fingerprints of what the verdict assessed) is a ' ~ (stored.type or 'relation of unknown type') ~ ', not a table: read now it computes the fingerprints anew instead of recording those the verdict was computed on (materialize it as a table: remove the +materialized override)') -%}
  {%- else -%}
    {%- set rows = run_query("select relation_name, row_count, fingerprint, settings_md5, invocation_id from " ~ inputs).rows -%}
    {%- if rows | length == 0 -%}
      {%- do problems.append(inputs.identifier ~ ' holds no fingerprint') -%}
    {%- else -%}
      {%- for r in rows -%}{%- do recorded.update({r[0]: r}) -%}{%- endfor -%}
      {%- do snapshot.append(rows[0][4]) -%}
      {%- set md5s = rows | map(attribute=3) | unique | list -%}
      {%- set ids = rows | map(attribute=4) | unique | list -%}
      {%- if md5s | length != 1 or ids | length != 1 -%}
        {%- do problems.append(inputs.identifier ~ ' mixes ' ~ md5s | length ~ ' settings and ' ~ ids | length ~ ' builds') -%}
      {%- elif md5s[0] != now_md5 -%}
        {%- do other_settings.append(inputs.identifier ~ ' (settings md5 ' ~ md5s[0] ~ ')') -%}
      {%- endif -%}
    {%- endif -%}
  {%- endif -%}
  {%- for name in dbt_deid.verdict_models(kind) -%}
    {%- set rel = ref('dbt_deid', name) -%}
    {%- if adapter.get_relation(rel.database, rel.schema, rel.identifier) is none -%}
      {%- do problems.append(name ~ ' (the verdict) is missing') -%}
    {%- else -%}
      {%- set cols = adapter.get_columns_in_relation(rel) | map(attribute='name') | map('lower') | list -%}
      {%- if 'settings_md5' not in cols or 'inputs_invocation_id' not in cols -%}
        {%- do problems.append(name ~ ' records no settings md5 or inputs (built by an older version of dbt_deid)') -%}
      {%- else -%}
        {%- set found = run_query("select distinct settings_md5, inputs_invocation_id from " ~ rel).rows -%}
        {%- if found | length != 1 -%}
          {%- do problems.append(name ~ ' records ' ~ found | length ~ ' settings/inputs pairs, not one') -%}
        {%- else -%}
          {%- if found[0][0] != now_md5 -%}
            {%- do other_settings.append(name ~ ' (settings md5 ' ~ found[0][0] ~ ')') -%}
          {%- endif -%}
          {%- if snapshot and found[0][1] != snapshot[0] -%}
            {%- do problems.append(name ~ ' did not assess the inputs fingerprinted in ' ~ inputs.identifier ~ ' (it read those of build ' ~ found[0][1] ~ ', they are of build ' ~ snapshot[0] ~ ')') -%}
          {%- endif -%}
        {%- endif -%}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if other_settings -%}
    {%- do problems.insert(0, 'computed with other settings than now (settings md5 ' ~ now_md5 ~ '): ' ~ other_settings | join(', ')) -%}
  {%- endif -%}
  {%- if recorded -%}
    {%- set names = [] -%}
    {%- for name, rel in dbt_deid.verdict_relations(kind) -%}
      {%- do names.append(name) -%}
      {%- set r = recorded.get(name) -%}
      {%- if r is none -%}
        {%- do problems.append(name ~ ' (' ~ rel ~ ') was not fingerprinted when the verdict was computed') -%}
      {%- elif adapter.get_relation(rel.database, rel.schema, rel.identifier) is none -%}
        {%- do problems.append(name ~ ' (' ~ rel ~ ') is missing') -%}
      {%- elif not (adapter.get_columns_in_relation(rel) | list) -%}
        {#- never a fingerprint of zero columns (the row count only): review 9 final, F8 -#}
        {%- do problems.append(name ~ ' (' ~ rel ~ '): dbt lists no column of it, it cannot be fingerprinted') -%}
      {%- else -%}
        {%- set fp = dbt_deid.table_fingerprint(rel) -%}
        {%- if fp.hash != r[2] or (fp.rows | int) != (r[1] | int) -%}
          {%- do problems.append(name ~ ' (' ~ rel ~ ') changed since the verdict was computed (' ~ r[1] ~ ' rows then, ' ~ fp.rows ~ ' now)') -%}
        {%- endif -%}
      {%- endif -%}
    {%- endfor -%}
    {%- set extra = recorded.keys() | reject('in', names) | list -%}
    {%- if extra -%}
      {%- do problems.append(inputs.identifier ~ ' fingerprinted other relations (' ~ extra | sort | join(', ') ~ ')') -%}
    {%- endif -%}
  {%- endif -%}
  {%- set ok = problems | length == 0 -%}
  {{ return({'gate': gate, 'passed': ok, 'failures': problems | length, 'figure': problems | length, 'limit': 0,
      'message': (gate ~ ': the verdict does not hold for what would be published: ' ~ problems | join('; ') ~ '; rebuild the assessment with its upstream models (' ~ rebuild ~ ')') if not ok
        else (gate ~ ': the verdict was computed under these settings on these inputs (' ~ recorded | length ~ ' relations fingerprinted, build ' ~ snapshot[0] ~ ')')}) }}
{%- endmacro %}

{#- The `-- depends_on:` lines a publish model of `kind` needs for verdict_bound_result: the
    fingerprints model, the verdict models and the bound relations (a ref the gate makes at run
    time must be a dependency of the model). -#}
{% macro verdict_depends_on(kind) -%}
  {%- set lines = ['-- depends_on: ' ~ ref('dbt_deid', 'deid_' ~ kind ~ '_verdict_inputs')] -%}
  {%- for name in dbt_deid.verdict_models(kind) -%}{%- do lines.append('-- depends_on: ' ~ ref('dbt_deid', name)) -%}{%- endfor -%}
  {%- for name, rel in dbt_deid.verdict_relations(kind) -%}{%- do lines.append('-- depends_on: ' ~ rel) -%}{%- endfor -%}
  {{ return(lines | join('\n')) }}
{%- endmacro %}
