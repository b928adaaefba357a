{#- The columns of deid_report_inputs after `part`, in order: each as {name, source (its name in
    the part's own query), part, type}. The QI levels of the search nodes are `<qi>__level`, so
    no QI name can collide with another part's column. -#}
{% macro report_input_columns(cfg) -%}
  {{ return(dbt_deid.own(adapter.dispatch('report_input_columns', 'dbt_deid'))(cfg)) }}
{%- endmacro %}

{% macro default__report_input_columns(cfg) -%}
  {%- set i, n, f = dbt.type_int(), dbt.type_bigint(), dbt_deid.type_double() -%}
  {%- set s, b = dbt.type_string(), dbt.type_boolean() -%}
  {%- set out = [] -%}
  {%- for q in cfg.qi_names -%}
    {%- do out.append({'name': q ~ '__level', 'source': q, 'part': 'search_nodes', 'type': i}) -%}
  {%- endfor -%}
  {%- for name, type in [('role', s), ('suppressed', n), ('suppressed_share', f), ('passes', b),
                         ('chosen', b), ('metric', s), ('information_loss', f),
                         ('max_suppression', f), ('nodes_evaluated', n), ('search', s)] -%}
    {%- do out.append({'name': name, 'source': name, 'part': 'search_nodes', 'type': type}) -%}
  {%- endfor -%}
  {%- for name, type in [('release_version', n), ('status', s), ('recorded_at', s),
                         ('published_rows', n), ('package_version', s), ('gates_failed', s),
                         ('records_shared', n), ('combined_min_consistent', n),
                         ('invocation_id', s)] -%}
    {%- do out.append({'name': name, 'source': name, 'part': 'release_versions', 'type': type}) -%}
  {%- endfor -%}
  {{ return(out) }}
{%- endmacro %}
