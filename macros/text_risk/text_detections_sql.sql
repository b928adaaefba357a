{#- The tool's detections: doc_id, detection_id (row number), span_start, span_end,
    detected_type. -#}
{% macro text_detections_sql(cfg, documents) -%}
  {{ return(dbt_deid.own(adapter.dispatch('text_detections_sql', 'dbt_deid'))(cfg, documents)) }}
{%- endmacro %}

{% macro default__text_detections_sql(cfg, documents) -%}
with t as (
  select {{ dbt_deid._text_id('doc_id') }} as doc_id,
    {{ dbt_deid._text_offset(adapter.quote('start')) }} as span_start,
    {{ dbt_deid._text_offset(adapter.quote('end')) }} as span_end,
    {{ dbt_deid._text_id('detected_type') }} as detected_type
  from {{ dbt_deid.text_input_relation(cfg, 'detections') }}
)
select t.doc_id,
  row_number() over (order by t.doc_id, t.span_start, t.span_end, t.detected_type) as detection_id,
  t.span_start, t.span_end, t.detected_type
from t
join {{ documents }} as d on d.doc_id = t.doc_id
{%- endmacro %}
