{#- One QI's hierarchy between the levels a check uses: rows (lv_from, v_from, lv_to, v_to), a
    value at level lv_from and the value at lv_to (lv_to >= lv_from, the level itself included)
    of the same original values in deid_hierarchy; the missing label is the missing label at
    every level. The combined view at mixed levels (combined_levels_view_sql) and the linked
    check of changed records (linked_changes_sql) read values of one QI at several levels
    through it. -#}
{% macro level_map_sql(hierarchy, q, levels, missing_label) -%}
  {{ return(dbt_deid.own(adapter.dispatch('level_map_sql', 'dbt_deid'))(hierarchy, q, levels, missing_label)) }}
{%- endmacro %}

{% macro default__level_map_sql(hierarchy, q, levels, missing_label) -%}
  {%- set miss = dbt_deid.literal(missing_label) -%}
    select a.level as lv_from, a.generalized_value as v_from, b.level as lv_to, b.generalized_value as v_to
    from {{ hierarchy }} as a
    inner join {{ hierarchy }} as b on b.qi_name = a.qi_name and b.original_value = a.original_value
    where a.qi_name = {{ dbt_deid.literal(q) }} and a.level in ({{ levels | join(', ') }}) and b.level in ({{ levels | join(', ') }}) and b.level >= a.level
    group by a.level, a.generalized_value, b.level, b.generalized_value
    {%- for x in levels %}{% for y in levels if y >= x %}
    union all select {{ x }}, {{ miss }}, {{ y }}, {{ miss }}
    {%- endfor %}{% endfor %}
{%- endmacro %}
