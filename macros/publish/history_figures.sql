{#- The history's figures (achieved_json, information_loss_json) are those of the build whose
    gates the publish step read. They are read from deid_diagnostics (its risk_summary and
    information_loss rows), which is computed once per build, after the gate table
    (depends_on), and carries the invocation_id that built it; the gate table carries its own.
    The publish step reads them only when the diagnostics were computed in the invocation that
    computed the gate table the gate `gate_table` has proven fresh: within one dbt invocation
    every node is built at most once and after its ancestors, so the two tables saw the same
    settings (the invocation's vars) and the same checked release. A selection that rebuilds the gate table but not them (e.g.
    `dbt build -s +deid_gate_results deid_published`) would have recorded an earlier build's
    figures (a k = 10 release recorded with the k = 5 build's smallest class 5): the gate
    `history_figures` fails and the release is refused naming what to rebuild, so a published
    row always states the risk it was published at (El Emam et al. 2011: the achieved risk is
    reported with each release). -#}
{% macro history_figures_result(gate_invocation) -%}
  {{ return(dbt_deid.own(adapter.dispatch('history_figures_result', 'dbt_deid'))(gate_invocation)) }}
{%- endmacro %}

{% macro default__history_figures_result(gate_invocation) -%}
  {%- set problems = [] -%}
  {%- for base in ['deid_diagnostics'] -%}
    {%- set rel = dbt_deid.release_ref(base) -%}
    {%- if not dbt_deid.can_inspect(rel) -%}
      {%- do problems.append(rel ~ ' is missing') -%}
    {%- elif 'invocation_id' not in (adapter.get_columns_in_relation(rel) | map(attribute='name') | map('lower') | list) -%}
      {%- do problems.append(rel ~ ' was computed by an older package version (no invocation_id)') -%}
    {%- else -%}
      {%- set ids = run_query("select distinct invocation_id from " ~ rel).rows | map(attribute=0) | list -%}
      {%- if ids != [gate_invocation] -%}
        {%- do problems.append(rel ~ ' was computed by ' ~ (('invocation ' ~ ids | join(', ')) if ids else 'no invocation (it is empty)') ~ ', not by the one that computed the gate table (' ~ gate_invocation ~ ')') -%}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if problems -%}
    {{ return({'gate': 'history_figures', 'passed': false, 'failures': problems | length, 'achieved': none, 'information_loss': none,
        'message': problems | join('; ') ~ ': the history would record another build\'s figures; rebuild them with the gate table (dbt build -s +' ~ model.name ~ ')'}) }}
  {%- endif -%}
  {{ return({'gate': 'history_figures', 'passed': true, 'failures': 0,
      'achieved': dbt_deid.achieved_figures(), 'information_loss': dbt_deid.information_loss_headline(),
      'message': 'the figures the history records (deid_diagnostics: risk_summary, information_loss) were computed with the gate table (invocation ' ~ gate_invocation ~ ')'}) }}
{%- endmacro %}
