{#- The nodes the generalization search evaluated, for the report's risk-utility picture
    (issue 36 item 4; ARX's GUI plots the evaluated transformations the same way): the rows of
    deid_ola_search with a value of the release's metric (k-minimal, optimal, heuristic and
    evaluated nodes; not the lattice's top node), in one layout whatever the metric - the QI
    levels, role, suppressed, suppressed_share, passes, chosen, metric, information_loss (the
    node's value of generalization.metric), max_suppression, nodes_evaluated and search.
    `search_relation` is none when the release's levels are set in the settings (no search ran):
    then the table has the same columns and no row, and the report says so. -#}
{% macro search_nodes_sql(cfg, search_relation, metric) -%}
  {{ return(dbt_deid.own(adapter.dispatch('search_nodes_sql', 'dbt_deid'))(cfg, search_relation, metric)) }}
{%- endmacro %}

{% macro default__search_nodes_sql(cfg, search_relation, metric) -%}
  {%- set i, n, f = dbt.type_int(), dbt.type_bigint(), dbt_deid.type_double() -%}
  {%- set s, b = dbt.type_string(), dbt.type_boolean() -%}
  {%- set cols = [] -%}
  {%- for q in cfg.qi_names -%}
    {%- do cols.append(('cast(' ~ dbt_deid.ident(q) ~ ' as ' ~ i ~ ')' if search_relation is not none else 'cast(null as ' ~ i ~ ')') ~ ' as ' ~ dbt_deid.ident(q)) -%}
  {%- endfor -%}
  {%- if search_relation is not none -%}
    {%- set value = dbt_deid.ident(metric) -%}
    {%- do cols.extend([
        'cast(role as ' ~ s ~ ') as role', 'cast(suppressed as ' ~ n ~ ') as suppressed',
        'cast(suppressed_share as ' ~ f ~ ') as suppressed_share', 'passes', 'chosen',
        'cast(metric as ' ~ s ~ ') as metric', 'cast(' ~ value ~ ' as ' ~ f ~ ') as information_loss',
        'cast(max_suppression as ' ~ f ~ ') as max_suppression',
        'cast(nodes_evaluated as ' ~ n ~ ') as nodes_evaluated', 'cast(search as ' ~ s ~ ') as search']) -%}
select {{ cols | join(',\n  ') }}
from {{ search_relation }}
where role <> 'top' and {{ value }} is not null
  {%- else -%}
    {%- do cols.extend([
        'cast(null as ' ~ s ~ ') as role', 'cast(null as ' ~ n ~ ') as suppressed',
        'cast(null as ' ~ f ~ ') as suppressed_share', 'cast(null as ' ~ b ~ ') as passes',
        'cast(null as ' ~ b ~ ') as chosen', 'cast(null as ' ~ s ~ ') as metric',
        'cast(null as ' ~ f ~ ') as information_loss', 'cast(null as ' ~ f ~ ') as max_suppression',
        'cast(null as ' ~ n ~ ') as nodes_evaluated', 'cast(null as ' ~ s ~ ') as search']) -%}
select {{ cols | join(',\n  ') }}
where 1 = 0
  {%- endif %}
{%- endmacro %}
