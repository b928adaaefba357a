{#- True when every package model in `bases` (names without the release prefix, e.g.
    'deid_suppressed') of the current node's release is selected in this invocation
    (`selected_resources`): built by it, from each other, not left by another build. False at
    parse time and for a model another invocation built (a preview: `python -m dbt_deid advise
    --vars ...` rebuilds deid_generalized and deid_suppression_map, not deid_suppressed; review 9
    final, F4). On the adapters without dbt Python models the Python models are built by the
    segmented runner, outside dbt's invocation: never selected here. -#}
{% macro built_together(bases) -%}
  {{ return(dbt_deid.own(adapter.dispatch('built_together', 'dbt_deid'))(bases)) }}
{%- endmacro %}

{% macro default__built_together(bases) -%}
  {%- if not execute -%}{{ return(false) }}{%- endif -%}
  {%- set selected = selected_resources or [] -%}
  {%- for base in bases -%}
    {%- set name = dbt_deid.release_node_name(base) -%}
    {%- set found = [] -%}
    {%- for uid, node in graph.nodes.items() -%}
      {%- if node.resource_type == 'model' and node.name == name and uid in selected -%}{%- do found.append(uid) -%}{%- endif -%}
    {%- endfor -%}
    {%- if found | length == 0 -%}{{ return(false) }}{%- endif -%}
  {%- endfor -%}
  {{ return(true) }}
{%- endmacro %}

{#- Spark (issue 37, session 18): open-source Spark has no dbt Python models, so a release is
    built by `python -m dbt_deid build` in segments, one dbt invocation each, the map computed by
    the runner between them: deid_diagnostics' segment never selects deid_generalized (an
    earlier segment) nor the map (no dbt node run), and the default was false in every Spark
    build. Here a model also counts as built by this build when the segmented build's whole
    selection names it, under upstream_not_built's conditions (DBT_DEID_SEGMENTED_SELECTION
    honoured only in a segment: a `dbt build` whose selection it covers and that names the
    current node; the same walk the gate table's upstream check trusts) and that walk does not
    report it missing. A preview that rebuilt the map in another
    invocation is not in this build's selection: false, as by default. -#}
{% macro spark__built_together(bases) -%}
  {%- if dbt_deid.default__built_together(bases) -%}{{ return(true) }}{%- endif -%}
  {%- if not execute -%}{{ return(false) }}{%- endif -%}
  {%- set listed = (env_var('DBT_DEID_SEGMENTED_SELECTION', '') or '').split(',') | select | list -%}
  {%- if not listed -%}{{ return(false) }}{%- endif -%}
  {%- set found = dbt_deid.upstream_not_built(model.unique_id) -%}
  {%- if found.ignored is not none or found.left -%}{{ return(false) }}{%- endif -%}
  {%- for base in bases -%}
    {%- set name = dbt_deid.release_node_name(base) -%}
    {%- set hit = [] -%}
    {%- for uid, node in graph.nodes.items() -%}
      {%- if node.resource_type == 'model' and node.name == name and (uid in selected_resources or uid in listed) -%}{%- do hit.append(uid) -%}{%- endif -%}
    {%- endfor -%}
    {%- if hit | length == 0 or name in found.missing -%}{{ return(false) }}{%- endif -%}
  {%- endfor -%}
  {{ return(true) }}
{%- endmacro %}
