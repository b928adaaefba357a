{#- ---------- baseline recalls (Table 1, Table 3, Table 6 style) ---------- -#}

{#- One row per type, per kind (type = '*') and overall (kind = type = '*'): instances, tokens,
    documents, micro_recall (conventional, equation 1: typed catches / instances),
    masking_recall (masked tokens / tokens, section 2.3.2) and all_or_nothing_recall (documents
    whose selected instances are all caught / documents with one, section 2.3.1). -#}
{% macro text_recall_sql(outcomes) -%}
  {{ return(dbt_deid.own(adapter.dispatch('text_recall_sql', 'dbt_deid'))(outcomes)) }}
{%- endmacro %}

{% macro default__text_recall_sql(outcomes) -%}
  {#- the grouping keys name only columns: PostgreSQL rejects a constant in GROUP BY -#}
  {%- set groupings = [
      ('type', 'kind', 'type', ['kind', 'type']),
      ('kind', 'kind', "'*'", ['kind']),
      ('all', "'*'", "'*'", []),
  ] -%}
with o as (select * from {{ outcomes }}),
{%- for scope, kind_expr, type_expr, keys in groupings %}
{{ scope }}_docs as (
  select {{ kind_expr }} as kind, {{ type_expr }} as type, doc_id,
    min(case when caught then 1 else 0 end) as all_caught
  from o group by {{ (keys + ['doc_id']) | join(', ') }}
),
{{ scope }}_rows as (
  select {{ dbt_deid.literal(scope) }} as scope, i.kind, i.type, i.instances, i.tokens,
    d.documents,
    1.0 * i.caught_typed / i.instances as micro_recall,
    1.0 * i.tokens_masked / i.tokens as masking_recall,
    1.0 * d.documents_all_caught / d.documents as all_or_nothing_recall
  from (
    select {{ kind_expr }} as kind, {{ type_expr }} as type, count(*) as instances,
      cast(sum(tokens) as {{ dbt.type_bigint() }}) as tokens, sum(tokens_masked) as tokens_masked,
      sum(case when caught_typed then 1 else 0 end) as caught_typed
    from o{% if keys %} group by {{ keys | join(', ') }}{% endif %}
  ) as i
  join (
    select kind, type, count(*) as documents, cast(sum(all_caught) as {{ dbt.type_bigint() }}) as documents_all_caught
    from {{ scope }}_docs group by kind, type
  ) as d on d.kind = i.kind and d.type = i.type
){{ "," if not loop.last }}
{%- endfor %}
{%- for scope, kind_expr, type_expr, keys in groupings %}
select * from {{ scope }}_rows
{%- if not loop.last %} union all{% endif %}
{%- endfor %}
{%- endmacro %}
