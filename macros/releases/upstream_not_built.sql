{#- The working models upstream of a node that this build did not build (review 9, G1, for the
    claims and text verdicts; review 10, A1, for the discharge releases' gate table).

    A node that binds what it computes to the tables it reads (the claims and text verdict
    inputs, verdict_chain_check; the gate table deid_gate_results, the gate upstream_built)
    holds only if those tables were computed from each other, by one build under one set of
    settings: a table left by another invocation (a preview `dbt run -s deid_hierarchy --vars
    <other>`, `python -m dbt_deid advise --vars ...`, an older extract's snapshot) is otherwise
    read as if it were this build's. Walks the whole graph upstream of the node `uid` and
    returns {missing: the sorted names of the working models (dbt_deid's own models, and the
    `<release>__deid_*` models of an extra release in the root project) not selected in this
    invocation, ignored: why DBT_DEID_SEGMENTED_SELECTION was ignored (none when it was not
    set or was honoured), left: the nodes left unwalked (more than dbt's sandbox lets range()
    step through; 0 when the whole graph was walked)}.

    python -m dbt_deid build on an adapter without dbt Python models builds the selection in
    segments, one dbt invocation each: it names the whole build's selection in
    DBT_DEID_SEGMENTED_SELECTION (dbt_deid.dbt_side.engine.segmented.SELECTION_ENV), whose nodes
    count as built. Honoured only in what can be such a segment (review 9 final, F3): an
    adapter without dbt Python models (not segmented.PYTHON_MODEL_ADAPTERS; or one with them
    when the runner was asked to compute the Python models itself, `--python-nodes runner`,
    which sets DBT_DEID_PYTHON_NODES_RUNNER=1 in its own process for the build), a `dbt build`, the
    variable naming the node `uid` and every node this invocation selects (a stale export of
    another build's selection does not); a line is logged when it is used. -#}
{% macro upstream_not_built(uid) -%}
  {{ return(dbt_deid.own(adapter.dispatch('upstream_not_built', 'dbt_deid'))(uid)) }}
{%- endmacro %}

{% macro default__upstream_not_built(uid) -%}
  {%- set missing = [] -%}
  {%- set listed = (env_var('DBT_DEID_SEGMENTED_SELECTION', '') or '').split(',') | select | list -%}
  {%- set ignored = [] -%}
  {%- if listed -%}
    {%- if adapter.type() in ['duckdb', 'snowflake', 'databricks', 'bigquery'] and env_var('DBT_DEID_PYTHON_NODES_RUNNER', '') != '1' -%}
      {%- do ignored.append('adapter ' ~ adapter.type() ~ ' has dbt Python models, python -m dbt_deid build does not segment there') -%}
    {%- elif flags.WHICH != 'build' -%}
      {%- do ignored.append('a `dbt ' ~ flags.WHICH ~ '`, not a segment (segments are `dbt build`)') -%}
    {%- elif uid not in listed -%}
      {%- do ignored.append('it does not name ' ~ uid ~ ' (the selection of another build)') -%}
    {%- elif selected_resources | reject('in', listed) | list -%}
      {%- do ignored.append('this invocation selects nodes it does not name') -%}
    {%- endif -%}
  {%- endif -%}
  {%- set segmented = listed if not ignored else [] -%}
  {%- set name = graph.nodes[uid].name if uid in graph.nodes else uid -%}
  {%- if segmented -%}
    {%- do log("dbt_deid: " ~ name ~ ": a segment of a segmented build (python -m dbt_deid build): the upstream models are checked against the whole build's selection in DBT_DEID_SEGMENTED_SELECTION (" ~ segmented | length ~ " nodes)", info=true) -%}
  {%- endif -%}
  {%- set seen = {} -%}
  {%- set todo = (graph.nodes[uid].depends_on.nodes | list) if uid in graph.nodes else [] -%}
  {#- every node is pushed at most once per edge into it: that many steps walk the whole graph
      upstream (review 9 final, F6: a fixed 10,000 stopped silently); range() is capped at
      100,000 by dbt's sandbox -#}
  {%- set steps = [todo | length] -%}
  {%- for n in graph.nodes.values() -%}{%- do steps.append((n.depends_on.nodes or []) | length) -%}{%- endfor -%}
  {%- for _ in range([steps | sum + 1, 100000] | min) if todo -%}
    {%- set up = todo.pop() -%}
    {%- if up not in seen and up in graph.nodes -%}
      {%- do seen.update({up: true}) -%}
      {%- set node = graph.nodes[up] -%}
      {%- set working = node.package_name == 'dbt_deid' or dbt_deid._split_release_node(node.name) is not none -%}
      {%- if node.resource_type == 'model' and working and up not in selected_resources and up not in segmented -%}
        {%- do missing.append(node.name) -%}
      {%- endif -%}
      {%- do todo.extend(node.depends_on.nodes) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return({'missing': missing | sort, 'ignored': ignored[0] if ignored else none, 'left': todo | length}) }}
{%- endmacro %}
