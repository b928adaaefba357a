{#- The table ('patients' or 'claims') with each hierarchical QI replaced by its label at the
    release level (deid_claims_levels), joined to the long-form hierarchy on the value cast to a
    string; other columns unchanged. -#}
{% macro claims_generalize_sql(cfg, table, relation, hierarchy, levels) -%}
  {{ return(dbt_deid.own(adapter.dispatch('claims_generalize_sql', 'dbt_deid'))(cfg, table, relation, hierarchy, levels)) }}
{%- endmacro %}

{% macro default__claims_generalize_sql(cfg, table, relation, hierarchy, levels) -%}
  {%- set hier = dbt_deid.claims_hierarchical(cfg, table) -%}
  {%- set names = adapter.get_columns_in_relation(relation) | map(attribute='name') | list if execute else [] -%}
select
  {%- for c in names %}
    {%- if c in hier %}
    h{{ hier.index(c) }}.generalized_value as {{ dbt_deid.ident(c) }}
    {%- else %}
    t.{{ dbt_deid.ident(c) }}
    {%- endif %}{% if not loop.last %},{% endif %}
  {%- endfor %}
  {%- if names | length == 0 %} *{% endif %}
from {{ relation }} as t
{%- for c in hier %}
left join {{ hierarchy }} as h{{ loop.index0 }}
  on h{{ loop.index0 }}.qi_name = {{ dbt_deid.literal(c) }}
  and h{{ loop.index0 }}.level = (select level from {{ levels }} where column_name = {{ dbt_deid.literal(c) }})
  and h{{ loop.index0 }}.original_value = cast(t.{{ dbt_deid.ident(c) }} as {{ dbt.type_string() }})
{%- endfor %}
{%- endmacro %}
