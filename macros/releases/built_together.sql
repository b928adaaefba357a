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
