{#- The text release's publish gates (seed 004, Scaiano, El Emam et al. 2016), run by the
    deid_publish materialization (gate set 'text') on the table it writes, so `dbt run`,
    `dbt build -s deid_text_published`, excluded tests and severity overrides cannot publish a
    failing release. One result per gate: {gate, passed, failures, figure, limit, message}
    (figures only, never document text).

    * direct (section 2.3.9.1): the upper 95% limit of the direct-identifier risk (equation 20)
      <= the upper 95% limit of the benchmark distribution;
    * quasi (section 2.3.9.2, equations 21-22): the upper 95% limit <= tau of the current
      settings (an assessment computed under another tau is refused);
    * text_verdict_bound: the assessment was computed under the settings of now, on the inputs
      as they are now (the fingerprints of deid_text_verdict_inputs: the three inputs, the
      staged documents and detections the table is computed from, the counts the assessment
      read; verdict_binding.sql), else refused naming `dbt build -s +tag:deid_text`;
    * published_columns, documents: the written table has exactly doc_id, text,
      spans_replaced, and one row per document of deid_text_documents;
    * text_line: a later version of the line is identical to the published one, or the line is
      restarted (kind_line.sql: text versions cannot be combined yet). -#}
{% macro text_publish_gate_results(cfg, candidate) -%}
  {{ return(dbt_deid.own(adapter.dispatch('text_publish_gate_results', 'dbt_deid'))(cfg, candidate)) }}
{%- endmacro %}

{% macro default__text_publish_gate_results(cfg, candidate) -%}
  {%- set gate = ref('dbt_deid', 'deid_text_release_gate') -%}
  {%- set t = run_query("select measure, point, upper, passed from " ~ gate ~ " where measure in ('direct', 'direct_benchmark', 'quasi')") -%}
  {%- set by = {} -%}
  {%- for r in t.rows -%}{%- do by.update({r[0]: r}) -%}{%- endfor -%}
  {%- set results = [] -%}
  {%- set bench = by.get('direct_benchmark') -%}
  {%- set checks = [('direct', dbt_deid._json_number(bench[2]) if bench is not none else none, 'the benchmark upper 95% limit'),
                    ('quasi', cfg.tau | float, 'tau')] -%}
  {%- for measure, limit, name in checks -%}
    {%- set r = by.get(measure) -%}
    {%- set figure = dbt_deid._json_number(r[2]) if r is not none else none -%}
    {%- set ok = r is not none and dbt_deid._is_true(r[3]) and figure is not none and limit is not none and figure <= limit -%}
    {%- if r is none or figure is none or limit is none -%}
      {%- set message = measure ~ ': not assessed (no ' ~ measure ~ ' or benchmark row in deid_text_release_gate)' -%}
    {%- else -%}
      {%- set message = measure ~ ': upper 95% limit ' ~ ('%.4g' | format(figure)) ~ (' <= ' if ok else ' > ') ~ name ~ ' ' ~ ('%.4g' | format(limit)) ~ ('' if ok or figure > limit else ' (the assessment failed this gate under other settings: rebuild it)') -%}
    {%- endif -%}
    {%- do results.append({'gate': measure, 'passed': ok, 'failures': 0 if ok else 1, 'figure': figure, 'limit': limit, 'message': message}) -%}
  {%- endfor -%}
  {#- the verdicts hold for what is published only under the settings and on the inputs they
      were computed with (review 9, G1; macros/gates/verdict_binding.sql) -#}
  {%- do results.append(dbt_deid.verdict_bound_result('text')) -%}

  {%- set want = ['doc_id', 'text', 'spans_replaced'] -%}
  {%- set got = adapter.get_columns_in_relation(candidate) | map(attribute='name') | map('lower') | list -%}
  {%- set extra = got | reject('in', want) | list -%}
  {%- set absent = want | reject('in', got) | list -%}
  {%- do results.append({'gate': 'published_columns', 'passed': not extra and not absent, 'failures': extra | length + absent | length,
      'figure': got | length, 'limit': want | length,
      'message': 'published columns: ' ~ want | join(', ') ~ ((', undeclared ' ~ extra | join(', ')) if extra else '') ~ ((', missing ' ~ absent | join(', ')) if absent else '')}) -%}
  {%- if not absent -%}
    {%- set docs = ref('dbt_deid', 'deid_text_documents') -%}
    {%- set r = run_query("select (select count(*) from " ~ candidate ~ "), (select count(distinct doc_id) from " ~ candidate ~ "), (select count(*) from " ~ docs ~ "),"
        ~ " (select count(*) from " ~ docs ~ " as d where not exists (select 1 from " ~ candidate ~ " as c where c.doc_id = d.doc_id))").rows[0] -%}
    {%- set ok = r[0] == r[2] and r[1] == r[0] and r[3] == 0 -%}
    {%- do results.append({'gate': 'documents', 'passed': ok, 'failures': 0 if ok else 1, 'figure': r[0] | int, 'limit': r[2] | int,
        'message': ('documents: one row per each of the ' ~ r[2] ~ ' documents') if ok
          else ('documents: ' ~ r[0] ~ ' rows (' ~ r[1] ~ ' distinct documents) written for ' ~ r[2] ~ ' documents, ' ~ r[3] ~ ' missing')}) -%}
  {%- endif -%}
  {#- the line: a later version is published only when identical or restarted (kind_line.sql) -#}
  {%- do results.append(dbt_deid.kind_line_gate_result('text', 'documents', candidate, this.incorporate(type='table'), dbt_deid.text_input_relation(cfg, 'documents'))) -%}
  {{ return(results) }}
{%- endmacro %}
