{#- The report's optional inputs in one long table (deid_report_inputs; issue 33, item 3), one
    `part` per input, so the report model (a dbt Python model reads only what it refs with a
    literal name, and a ref to a disabled node fails) refs one always-built node whatever the
    release declares:
    - `search_nodes`: the nodes the generalization search evaluated (dbt_deid.search_nodes_sql),
      each QI's level in `<qi>__level`;
    - `release_versions`: the release's rows of deid_release_history
      (dbt_deid.release_versions_sql);
    - `small_area_inputs`: deid_small_area_inputs, the inputs of El Emam et al. 2010's
      small-area models (built only with `small_areas`);
    - `population_patterns`: deid_population_patterns, the population relation at the released
      levels (built only with a sampling fraction, population size or population; rows only
      with a population), each QI's value in `<qi>__population`;
    - `algorithm_comparison`: deid_algorithm_comparison, the suppression algorithms compared
      (built only with `report.algorithm_comparison: true`).
    A part that does not apply (no search, no history yet, no small areas, no population
    information, no comparison requested) has no row. Each part's columns are cast to one type and are null on the
    other part's rows (dbt_deid.report_input_columns); dbt_deid.dbt_side.glue.report_inputs
    splits them back. `search_relation` is deid_ola_search (none without the search),
    `history` the history relation next to the publish model `published` (none before it
    exists), `small_area_inputs`, `population_patterns` and `algorithm_comparison` their
    models (none when they are not built).
    The view reads deid_small_area_inputs; deid_small_areas must never read this view: with a
    small-area remedy the geography's hierarchy reads deid_small_areas, so with the OLA search
    the small-area models are upstream of deid_ola_search, which this view reads (a cycle). -#}
{% macro report_inputs_sql(cfg, search_relation, metric, history, published, small_area_inputs=none, population_patterns=none, algorithm_comparison=none) -%}
  {{ return(dbt_deid.own(adapter.dispatch('report_inputs_sql', 'dbt_deid'))(cfg, search_relation, metric, history, published, small_area_inputs, population_patterns, algorithm_comparison)) }}
{%- endmacro %}

{% macro default__report_inputs_sql(cfg, search_relation, metric, history, published, small_area_inputs=none, population_patterns=none, algorithm_comparison=none) -%}
  {%- set columns = dbt_deid.report_input_columns(cfg) -%}
  {%- set parts = [
      ('search_nodes', dbt_deid.search_nodes_sql(cfg, search_relation, metric) if search_relation is not none else none),
      ('release_versions', dbt_deid.release_versions_sql(cfg, history, published) if history is not none else none),
      ('small_area_inputs', ('select * from ' ~ small_area_inputs) if small_area_inputs is not none else none),
      ('population_patterns', ('select * from ' ~ population_patterns) if population_patterns is not none else none),
      ('algorithm_comparison', ('select * from ' ~ algorithm_comparison) if algorithm_comparison is not none else none),
  ] -%}
  {%- for part, body in parts %}
select cast({{ dbt_deid.literal(part) }} as {{ dbt.type_string() }}) as part
  {%- for c in columns %},
  {% if c.part == part and body is not none -%}
  cast(p.{{ dbt_deid.ident(c.source) }} as {{ c.type }})
  {%- else -%}
  cast(null as {{ c.type }})
  {%- endif %} as {{ dbt_deid.ident(c.name) }}
  {%- endfor %}
  {%- if body is not none %}
from ({{ body }}) as p
  {%- else %}
where 1 = 0
  {%- endif %}
  {%- if not loop.last %}
union all
  {%- endif %}
  {%- endfor %}
{%- endmacro %}
