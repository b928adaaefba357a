{#- ---------- publishing: replace every detected span by [TYPE] ---------- -#}

{#- doc_id, text (every detected span replaced), spans_replaced. Overlapping or nested
    detections are merged first (gaps and islands on the running maximum end); a merged span
    becomes `[TYPE]` when its detections agree on the type, else `[REDACTED]`. Touching spans
    stay separate. Documents without detections are unchanged. -#}
{% macro text_redact_sql(documents, detections) -%}
  {{ return(dbt_deid.own(adapter.dispatch('text_redact_sql', 'dbt_deid'))(documents, detections)) }}
{%- endmacro %}

{% macro default__text_redact_sql(documents, detections) -%}
  {%- set int = dbt.type_int() -%}
with ordered as (
  select doc_id, span_start, span_end, detected_type,
    max(span_end) over (
      partition by doc_id order by span_start, span_end, detected_type
      rows between unbounded preceding and 1 preceding
    ) as previous_end
  from {{ detections }}
),
flagged as (
  select *, case when previous_end is null or span_start >= previous_end then 1 else 0 end as starts_group
  from ordered
),
grouped as (
  select *, sum(starts_group) over (
      partition by doc_id order by span_start, span_end, detected_type rows unbounded preceding
    ) as group_id
  from flagged
),
merged as (
  select doc_id, group_id, min(span_start) as m_start, max(span_end) as m_end,
    case when min(detected_type) = max(detected_type) then min(detected_type) else 'REDACTED' end as label
  from grouped
  group by doc_id, group_id
),
bounds as (
  select m.*, coalesce(lag(m_end) over (partition by doc_id order by m_start), 0) as kept_from,
    row_number() over (partition by doc_id order by m_start desc) as from_last
  from merged as m
),
pieces as (
  -- text kept before each merged span
  select b.doc_id, b.m_start as pos, 0 as part,
    substr(d.text, cast(b.kept_from + 1 as {{ int }}), cast(b.m_start - b.kept_from as {{ int }})) as piece
  from bounds as b join {{ documents }} as d on d.doc_id = b.doc_id
  union all
  -- the placeholder
  select doc_id, m_start as pos, 1 as part, {{ dbt.concat(["'['", "label", "']'"]) }} as piece
  from bounds
  union all
  -- text kept after the last merged span
  select b.doc_id, d.text_length as pos, 2 as part,
    substr(d.text, cast(b.m_end + 1 as {{ int }}), cast(d.text_length - b.m_end as {{ int }})) as piece
  from bounds as b join {{ documents }} as d on d.doc_id = b.doc_id
  where b.from_last = 1
),
redacted as (
  select doc_id, {{ dbt_deid.ordered_string_agg('piece', ['pos', 'part']) }} as text
  from pieces
  group by doc_id
),
replaced as (
  select doc_id, count(*) as spans_replaced from merged group by doc_id
)
select d.doc_id, coalesce(r.text, d.text) as text, coalesce(c.spans_replaced, 0) as spans_replaced
from {{ documents }} as d
left join redacted as r on r.doc_id = d.doc_id
left join replaced as c on c.doc_id = d.doc_id
{%- endmacro %}
