{#- The gate upstream_built (review 10, A1, A1b, A1c): the gate table deid_gate_results is
    computed only over working tables built with it, in the same build.

    The gate table's gates read the release's working tables as it finds them: the plan
    deid_release_plan (the combinations verified), the input snapshot deid_input (the source
    the gate input_unchanged compares with, fingerprinted by the gate table itself since session
    11, the pass-through and sensitive values), the hierarchy deid_hierarchy (released_levels, and the
    combined gate's level mapping at publish), the generalized records, the patterns, the
    suppression map, the checked release, the exact check, the small-area flags
    deid_small_areas. Any invocation can rebuild one of them under other vars without rebuilding
    the others (a preview: `dbt run -s deid_hierarchy --vars <other rule>`, `dbt run -s
    deid_small_areas --vars <other areas>`, `python -m dbt_deid advise --vars ...`). A gate
    table then rebuilt over them under the real settings (`dbt build -s deid_suppressed+`,
    `dbt run -s deid_gate_results deid_diagnostics deid_published`) verified and recorded the
    preview's tables as the release's, and the gate working_tables does not fingerprint them
    again in the gate table's own invocation: on e1bf34b a second version at another level of
    admission_date was published with 4 records consistent with 3 combined records (k = 5,
    A1), a preview snapshot's pass-through values were published (A1b), and the small-area
    flags of another `small_areas` setting let a release the small-area gate refuses publish
    (A1c).

    So the gate table holds only when every working model upstream of it (the walk of the graph
    from its node: upstream_not_built, the check of the claims and text verdict inputs) was
    selected in the invocation that computes it, or, in a segment of a segmented `python -m
    dbt_deid build`, named by that build's selection. Then what the gate working_tables skips in
    that invocation was built by it, and a publish in a later invocation compares the
    fingerprints the gate table recorded from them. Otherwise the gate fails, naming the models
    not built and `dbt build -s +<publish model>`: a failing verdict like any other (nothing
    published, a refused history row), not an error while the model renders, so previews and
    single models (`dbt run -s deid_gate_results` to look at the verdicts) still run. The
    passing message names no relation (the gate table's messages are compared across engines,
    whose relation names differ). -#}
{% macro gate_upstream_built_result() -%}
  {{ return(dbt_deid.own(adapter.dispatch('gate_upstream_built_result', 'dbt_deid'))()) }}
{%- endmacro %}

{% macro default__gate_upstream_built_result() -%}
  {%- set found = dbt_deid.upstream_not_built(model.unique_id) -%}
  {%- set problems = [] -%}
  {%- if found.missing -%}
    {%- do problems.append('the gate table ' ~ this.identifier ~ ' was computed in this invocation over working tables it did not build: ' ~ found.missing | join(', ')
        ~ ' (left by another invocation, such as a preview with other vars, or another extract): the gates would verify, and the publish step read, tables not computed from these settings and this input'
        ~ ('; DBT_DEID_SEGMENTED_SELECTION ignored: ' ~ found.ignored if found.ignored else '')) -%}
  {%- endif -%}
  {%- if found.left -%}
    {%- do problems.append('the graph upstream of the gate table ' ~ this.identifier ~ ' is too large to check that every working model upstream was built with it (' ~ found.left ~ ' node(s) left after 100,000 steps)') -%}
  {%- endif -%}
  {{ return({'gate': 'upstream_built', 'passed': problems | length == 0, 'failures': found.missing | length + (1 if found.left else 0),
      'message': (problems | join('; ') ~ '; rebuild the release with its upstream models (dbt build -s +' ~ dbt_deid.release_node_name('deid_published') ~ ')') if problems
                 else 'every working model upstream of the gate table was built with it, in this build'}) }}
{%- endmacro %}
