{#- The OLA pattern table (El Emam et al. 2012 "Base Algorithm": OLA evaluates nodes on the distinct QI
    tuples with their counts): every QI at its minimum level (its configured `level`), grouped.
    Built from the source and deid_hierarchy, not from deid_generalized (which reads the
    levels OLA chooses from it). -#}
{% macro ola_patterns_sql(cfg, hierarchy_relation) -%}
  {{ return(dbt_deid.own(adapter.dispatch('ola_patterns_sql', 'dbt_deid'))(cfg, hierarchy_relation)) }}
{%- endmacro %}

{% macro default__ola_patterns_sql(cfg, hierarchy_relation) -%}
  {%- set mins = {} -%}
  {%- for q in cfg.qis -%}{%- do mins.update({q.name: q.level}) -%}{%- endfor -%}
  {{ return(dbt_deid.pattern_counts_sql('(' ~ dbt_deid.generalize_sql(cfg, hierarchy_relation, mins) ~ ') as g', cfg.qi_names)) }}
{%- endmacro %}

{#- The chosen levels: one row per QI (qi_name, qi_order, level - NULL when no node passes,
    min_level, max_level, height, message, search - optimal or heuristic) from the node report
    of deid_ola_search. -#}
{% macro ola_levels_sql(cfg, search_relation, hierarchy_relation) -%}
  {{ return(dbt_deid.own(adapter.dispatch('ola_levels_sql', 'dbt_deid'))(cfg, search_relation, hierarchy_relation)) }}
{%- endmacro %}

{% macro default__ola_levels_sql(cfg, search_relation, hierarchy_relation) -%}
  {%- set parts = [] -%}
  {%- for q in cfg.qis -%}
    {%- set c = dbt_deid.ident(q.name) -%}
    {%- set part -%}
  select {{ dbt_deid.literal(q.name) }} as qi_name, {{ loop.index }} as qi_order,
    cast((select {{ c }} from {{ search_relation }} where chosen) as integer) as level,
    {{ q.level }} as min_level,
    cast((select {{ c }} from {{ search_relation }} where role = 'top') as integer) as max_level,
    cast((select max(level) from {{ hierarchy_relation }} where qi_name = {{ dbt_deid.literal(q.name) }}) as integer) as height,
    (select max(message) from {{ search_relation }}) as message,
    (select max(search) from {{ search_relation }}) as search
    {%- endset -%}
    {%- do parts.append(part) -%}
  {%- endfor -%}
  {{ return(parts | join('\nunion all\n')) }}
{%- endmacro %}
