{#- ---------- step 3: per-annotation outcomes ---------- -#}

{#- doc_id, annotation_id, type, kind, value, span_start, span_end, tokens, tokens_masked,
    caught (every token masked: masking, section 2.3.2), caught_typed (a detection of the same
    type covers the whole span: conventional recall, equation 1). -#}
{% macro text_annotation_outcomes_sql(annotations, token_outcomes, detections) -%}
  {{ return(dbt_deid.own(adapter.dispatch('text_annotation_outcomes_sql', 'dbt_deid'))(annotations, token_outcomes, detections)) }}
{%- endmacro %}

{% macro default__text_annotation_outcomes_sql(annotations, token_outcomes, detections) -%}
with per_annotation as (
  select doc_id, annotation_id, count(*) as tokens,
    cast(sum(case when masked then 1 else 0 end) as {{ dbt.type_bigint() }}) as tokens_masked
  from {{ token_outcomes }}
  group by doc_id, annotation_id
)
select a.doc_id, a.annotation_id, a.type, a.kind, a.value, a.span_start, a.span_end,
  p.tokens, p.tokens_masked,
  p.tokens_masked = p.tokens as caught,
  case when exists (
    select 1 from {{ detections }} as d
    where d.doc_id = a.doc_id and d.detected_type = a.type
      and d.span_start <= a.span_start and d.span_end >= a.span_end
  ) then true else false end as caught_typed
from {{ annotations }} as a
join per_annotation as p on p.doc_id = a.doc_id and p.annotation_id = a.annotation_id
{%- endmacro %}
