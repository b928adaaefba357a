{#- Apply the suppression map returned by the Python core to the records. Records of a pattern
    are numbered by record id; map rows give, per pattern, which record ranks get which cells
    suppressed (patterns absent from the map keep their values). Output: record id, released
    value `<qi>` (NULL = suppressed), the true value at the released level `<qi>__generalized`
    and the original `<qi>__original`. -#}
{% macro apply_suppression_sql(cfg, generalized, suppression_map) -%}
  {{ return(adapter.dispatch('apply_suppression_sql', 'dbt_deid')(cfg, generalized, suppression_map)) }}
{%- endmacro %}

{% macro default__apply_suppression_sql(cfg, generalized, suppression_map) -%}
  {%- set rid = dbt_deid.ident(cfg.record_id) -%}
  {%- set cols = [] -%}{%- for q in cfg.qi_names -%}{%- do cols.append(dbt_deid.ident(q)) -%}{%- endfor -%}
  with ranked as (
    select g.*, row_number() over (partition by {{ cols | join(', ') }} order by {{ rid }}) as deid_rank__
    from {{ generalized }} as g
  )
  select
    r.{{ rid }} as {{ rid }}
    {%- for q in cfg.qi_names %}
    {%- set c = dbt_deid.ident(q) %}
    , case when m.{{ dbt_deid.ident(q ~ '__suppressed') }} then null else r.{{ c }} end as {{ c }}
    , r.{{ c }} as {{ dbt_deid.ident(q ~ '__generalized') }}
    , r.{{ dbt_deid.ident(q ~ '__original') }} as {{ dbt_deid.ident(q ~ '__original') }}
    {%- endfor %}
  from ranked as r
  left join {{ suppression_map }} as m
    on {% for c in cols %}r.{{ c }} = m.{{ c }} and {% endfor %}r.deid_rank__ between m.rank_from and m.rank_to
{%- endmacro %}
