{#- The gate working_tables (review 9b, H1, H3, H4): besides the checked release, the publish
    step reads working tables of the release as they are when it runs: the release plan
    deid_release_plan (released QIs and combinations: the candidate's columns, the proofs and
    the combined gate), the input snapshot deid_input (the pass-through and sensitive values
    the candidate joins) and the hierarchy deid_hierarchy (the combined gate's level mapping).
    Any invocation can rebuild them under other vars (`python -m dbt_deid advise --vars
    <preview>`, `dbt run -s deid_release_plan --vars ...`) without rebuilding the checked
    release or the gate table, and every other binding still holds. So the gate table records
    the fingerprints of the plan and the hierarchy (working_hashes, JSON {table: hash}) and its
    input_hash is the snapshot's fingerprint (input_unchanged proves it equal to the source's);
    the publish step, in another invocation than the gate table's, fingerprints them again and
    refuses when one differs. In the gate table's own invocation they are upstream of it, built
    before it and not rebuilt since, so they are not fingerprinted again (the same reasoning as
    the checked release's fingerprint, read_gate_table). In every invocation the plan the
    publish step reads must record the md5 of the settings of now (plan_settings_problem, the
    gate plan_settings; review 9 final, F7: the fingerprint binds the plan to the gate table,
    not to the settings). Messages name tables and hashes only. -#}

{#- The working tables bound by their fingerprint: [(name, relation, columns or none)]; the plan
    by the columns the nodes read (release_plan), the hierarchy by all its columns. -#}
{% macro working_tables(cfg) -%}
  {{ return([('deid_release_plan', dbt_deid.release_ref('deid_release_plan'), ['kind', 'item', 'position', 'column_name']),
             ('deid_hierarchy', dbt_deid.release_ref('deid_hierarchy'), none)]) }}
{%- endmacro %}

{#- {name: fingerprint hash} of the working tables as they are now (working_tables). -#}
{% macro working_tables_fingerprints(cfg) -%}
  {%- set out = {} -%}
  {%- for name, rel, columns in dbt_deid.working_tables(cfg) -%}
    {%- do out.update({name: dbt_deid.table_fingerprint(rel, columns).hash if dbt_deid.can_inspect(rel) else none}) -%}
  {%- endfor -%}
  {{ return(out) }}
{%- endmacro %}

{#- The publish step's gate working_tables: `recorded` is the gate table's working_hashes (JSON
    text, none for a gate table computed before it recorded them: refused), `input_hash` its
    input_hash (the snapshot's fingerprint when it was computed); `this_invocation`: the gate
    table was computed in this invocation (nothing fingerprinted again). -#}
{% macro gate_working_tables_result(cfg, recorded, input_hash, this_invocation) -%}
  {%- set rebuild = 'dbt build -s +' ~ this.identifier -%}
  {%- set problems = [] -%}
  {#- the plan this publish step reads (its columns, the proofs, the combined gate) was resolved
      from the settings of now, in any invocation (review 9 final, F7: the gate table's own
      gate plan_settings checked the plan it read; with the fingerprint below, in a later
      invocation, the plan read now is that plan) -#}
  {%- set plan_problem = dbt_deid.plan_settings_problem() -%}
  {%- if plan_problem is not none -%}{%- do problems.append(plan_problem) -%}{%- endif -%}
  {%- if recorded is none -%}
    {%- do problems.append('the gate table records no fingerprint of the working tables (computed by an earlier version of dbt_deid)') -%}
  {%- elif not this_invocation -%}
    {%- set was = fromjson(recorded) -%}
    {%- set now = dbt_deid.working_tables_fingerprints(cfg) -%}
    {%- for name, rel, columns in dbt_deid.working_tables(cfg) -%}
      {%- if was.get(name) is none or now.get(name) != was.get(name) -%}
        {%- do problems.append(rel ~ ' changed since the gate table was computed (fingerprint ' ~ was.get(name) ~ ', now ' ~ now.get(name) ~ ')') -%}
      {%- endif -%}
    {%- endfor -%}
    {%- set snapshot = dbt_deid.release_snapshot() -%}
    {%- set snap = dbt_deid.table_fingerprint(snapshot, dbt_deid.released_source_columns(cfg)).hash if dbt_deid.can_inspect(snapshot) else none -%}
    {%- if snap != input_hash -%}
      {%- do problems.append('the input snapshot ' ~ snapshot ~ ' changed since the gate table was computed (fingerprint ' ~ input_hash ~ ', now ' ~ snap ~ ')') -%}
    {%- endif -%}
  {%- endif -%}
  {{ return({'gate': 'working_tables', 'passed': problems | length == 0, 'failures': problems | length,
      'message': (problems | join('; ') ~ ': another invocation rebuilt them (a preview with other vars?); what would be published is not what the gates checked; rebuild the release with its upstream models (' ~ rebuild ~ ')') if problems
                 else 'the release plan (computed from these settings), the hierarchy and the input snapshot are those the gate table was computed with'}) }}
{%- endmacro %}
