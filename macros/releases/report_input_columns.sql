{#- The columns of deid_report_inputs after `part`, in order: each as {name, source (its name in
    the part's own query), part, type}. The QI levels of the search nodes are `<qi>__level` and
    the population patterns' QI values `<qi>__population`, so no QI name can collide with
    another part's column (no other column name has a double underscore). -#}
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
  {#- deid_small_area_inputs (small_area_inputs_sql): the population and the threshold as
      double on every engine (a sum of integers, a decimal literal in the model) -#}
  {%- for name, type in [('area_level', i), ('area', s), ('population', f), ('records', n),
                         ('maxcombs', n), ('geography_column', s), ('released_level', i),
                         ('threshold', f), ('source_areas_without_population', n)] -%}
    {%- do out.append({'name': name, 'source': name, 'part': 'small_area_inputs', 'type': type}) -%}
  {%- endfor -%}
  {#- deid_population_patterns (population_patterns_sql): each QI's value at the released
      level, then the count n -#}
  {%- for q in cfg.qi_names -%}
    {%- do out.append({'name': q ~ '__population', 'source': q, 'part': 'population_patterns', 'type': s}) -%}
  {%- endfor -%}
  {%- do out.append({'name': 'n', 'source': 'n', 'part': 'population_patterns', 'type': n}) -%}
  {#- deid_algorithm_comparison (dbt_deid.comparison.compare_algorithms): per algorithm and
      released column; min_consistent_exact is null above 200,000 patterns -#}
  {%- for name, type in [('algorithm', s), ('column_name', s), ('suppressed_cells', n),
                         ('share_cells_suppressed', f), ('records_with_suppression', n),
                         ('share_records_with_suppression', f), ('suppression_entropy', f),
                         ('smallest_class', n), ('min_consistent_exact', n), ('selected', b)] -%}
    {%- do out.append({'name': name, 'source': name, 'part': 'algorithm_comparison', 'type': type}) -%}
  {%- endfor -%}
  {{ return(out) }}
{%- endmacro %}
