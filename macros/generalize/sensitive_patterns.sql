{#- The sensitive values the attribute-disclosure remedy needs (attribute_disclosure.remedy:
    suppress, docs/attribute-disclosure-remedy.md): the suppression step sees, per QI pattern,
    how many records carry each sensitive value, so the classes' distributions are exact.

    sensitive_values_sql(cfg, relation): the records of `relation` (deid_generalized: record id
    and QIs) with one more column per sensitive column, named after it: its value as text, the
    missing label when NULL (a value of its own, as the gates read it), joined on the record id
    from the records the suppression protects (dbt_deid.protected_input).

    sensitive_pattern_counts_sql(cfg, relation): the compact pattern table the Python step
    reads, one row per QI pattern x sensitive tuple with its record count `n`, and for each
    sensitive column under the ordered distance (attribute_disclosure.ordered) its value's rank
    `<column>__order` in the column's order (typed values, missing last: the gate's order), and
    for each sensitive column under the hierarchical distance (attribute_disclosure.hierarchies)
    its value's ancestors `<column>__level_1` ... `<column>__level_H` as text, from the hierarchy
    relation the t-closeness gate reads (same casts and join on the first column; NULL when the
    value is not a leaf, which the Python step refuses). -#}
{% macro sensitive_values_sql(cfg, relation) -%}
  {{ return(dbt_deid.own(adapter.dispatch('sensitive_values_sql', 'dbt_deid'))(cfg, relation)) }}
{%- endmacro %}

{% macro default__sensitive_values_sql(cfg, relation) -%}
  {%- set rid = dbt_deid.ident(cfg.record_id) -%}
  select g.*
    {%- for col in cfg.sensitive %}
    , coalesce(cast(src.{{ dbt_deid.ident(col) }} as {{ dbt.type_string() }}), {{ dbt_deid.literal(cfg.missing_label) }}) as {{ dbt_deid.ident(col) }}
    {%- endfor %}
  from {{ relation }} as g
  join {{ dbt_deid.protected_input(cfg) }} as src on src.{{ rid }} = g.{{ rid }}
{%- endmacro %}

{% macro sensitive_pattern_counts_sql(cfg, relation) -%}
  {{ return(dbt_deid.own(adapter.dispatch('sensitive_pattern_counts_sql', 'dbt_deid'))(cfg, relation)) }}
{%- endmacro %}

{% macro default__sensitive_pattern_counts_sql(cfg, relation) -%}
  {%- set cols = [] -%}{%- for c in cfg.qi_names + cfg.sensitive -%}{%- do cols.append(dbt_deid.ident(c)) -%}{%- endfor -%}
  {%- set rid = dbt_deid.ident(cfg.record_id) -%}
  {%- set ordered = [] -%}{%- for c in cfg.sensitive if (c | lower) in cfg.attribute_disclosure.ordered -%}{%- do ordered.append(c) -%}{%- endfor -%}
  {%- set s = dbt.type_string() -%}
  {%- set trees = [] -%}
  {%- for c in cfg.sensitive if cfg.attribute_disclosure.hierarchies.get(c | lower) is not none -%}
    {%- set h = ref(cfg.attribute_disclosure.hierarchies[c | lower]) -%}
    {%- do trees.append((c, h, (adapter.get_columns_in_relation(h) | map(attribute='name') | list) if execute else [])) -%}
  {%- endfor -%}
  {%- set counts -%}
  select {{ cols | join(', ') }}
    {%- for c in ordered %}, max({{ dbt_deid.ident(c ~ '__order') }}) as {{ dbt_deid.ident(c ~ '__order') }}{% endfor %},
    count(*) as n
  from ({{ dbt_deid.sensitive_values_sql(cfg, relation) }}) as deid_sensitive_records
  {%- if ordered %}
  join (
    {#- the ordered distance's order (as the gate's `whole`): typed values, missing last -#}
    select src.{{ rid }} as deid_order_id
      {%- for c in ordered %}
      , dense_rank() over (order by case when src.{{ dbt_deid.ident(c) }} is null then 1 else 0 end, src.{{ dbt_deid.ident(c) }}) as {{ dbt_deid.ident(c ~ '__order') }}
      {%- endfor %}
    from {{ dbt_deid.protected_input(cfg) }} as src
  ) as deid_orders on deid_orders.deid_order_id = deid_sensitive_records.{{ rid }}
  {%- endif %}
  group by {{ cols | join(', ') }}
  {%- endset -%}
  {%- if not trees %}
  {{ counts }}
  {%- else %}
  {#- the hierarchical distance: each value's ancestors, one row per leaf (first column) -#}
  select deid_counts.*
    {%- for c, h, hcols in trees %}{% set t = loop.index0 %}{% for a in hcols[1:] %}, deid_tree_{{ t }}.{{ dbt_deid.ident(c ~ '__level_' ~ loop.index) }}{% endfor %}{% endfor %}
  from ({{ counts }}) as deid_counts
  {%- for c, h, hcols in trees if hcols %}
  left join (
    select cast({{ dbt_deid.ident(hcols[0]) }} as {{ s }}) as deid_leaf
      {%- for a in hcols[1:] %}, min(cast({{ dbt_deid.ident(a) }} as {{ s }})) as {{ dbt_deid.ident(c ~ '__level_' ~ loop.index) }}{% endfor %}
    from {{ h }} group by cast({{ dbt_deid.ident(hcols[0]) }} as {{ s }})
  ) as deid_tree_{{ loop.index0 }} on deid_tree_{{ loop.index0 }}.deid_leaf = deid_counts.{{ dbt_deid.ident(c) }}
  {%- endfor %}
  {%- endif %}
{%- endmacro %}
