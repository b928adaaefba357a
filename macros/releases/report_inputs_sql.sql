{#- The report's optional inputs in one long table (deid_report_inputs; issue 33, item 3), one
    `part` per input, so the report model (a dbt Python model reads only what it refs with a
    literal name, and a ref to a disabled node fails) refs one always-built node whatever the
    release declares:
    - `search_nodes`: the nodes the generalization search evaluated (dbt_deid.search_nodes_sql;
      no row when the levels are set in the settings), each QI's level in `<qi>__level`;
    - `small_area_inputs`: the inputs of El Emam et al. 2010's small-area models
      (dbt_deid.small_area_inputs_sql; no row without small_areas);
    - `release_versions`: the release's rows of deid_release_history (dbt_deid.release_versions_sql).
    A part that does not apply (no search, no small_areas, no history yet) has no row. Each
    part's columns are cast to one type and are null on the other parts' rows
    (dbt_deid.report_input_columns); dbt_deid.dbt_side.glue.report_inputs splits them back.
    `search_relation` is deid_ola_search (none without the search), `small_areas` the risk
    suite's config (none without small_areas), `history` the history relation next to the
    publish model `published` (none before it exists). -#}
{% macro report_inputs_sql(cfg, search_relation, metric, small_areas, history, published) -%}
  {{ return(dbt_deid.own(adapter.dispatch('report_inputs_sql', 'dbt_deid'))(cfg, search_relation, metric, small_areas, history, published)) }}
{%- endmacro %}

{% macro default__report_inputs_sql(cfg, search_relation, metric, small_areas, history, published) -%}
  {%- set columns = dbt_deid.report_input_columns(cfg) -%}
  {%- set parts = [
      ('search_nodes', dbt_deid.search_nodes_sql(cfg, search_relation, metric) if search_relation is not none else none),
      ('small_area_inputs', dbt_deid.small_area_inputs_sql(small_areas) if small_areas is not none else none),
      ('release_versions', dbt_deid.release_versions_sql(cfg, history, published) if history is not none else none),
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
