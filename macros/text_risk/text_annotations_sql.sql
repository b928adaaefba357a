{#- Gold annotations: doc_id, annotation_id, type, kind (the declared type's kind, else the
    annotation's), value (empty -> the span's text), span_start, span_end. -#}
{% macro text_annotations_sql(cfg, documents) -%}
  {{ return(dbt_deid.own(adapter.dispatch('text_annotations_sql', 'dbt_deid'))(cfg, documents)) }}
{%- endmacro %}

{% macro default__text_annotations_sql(cfg, documents) -%}
  {%- set rel = dbt_deid.text_input_relation(cfg, 'annotations') -%}
  {%- set names = adapter.get_columns_in_relation(rel) | map(attribute='name') | map('lower') | list if execute else ['kind', 'value'] -%}
  {%- set str = dbt.type_string() -%}
with a as (
  select {{ dbt_deid._text_id('doc_id') }} as doc_id,
    {{ dbt_deid._text_id('annotation_id') }} as annotation_id,
    {{ dbt_deid._text_id('type') }} as type,
    {{ ("lower(" ~ dbt_deid._text_id('kind') ~ ")") if 'kind' in names else "cast(null as " ~ str ~ ")" }} as kind,
    {{ ("cast(value as " ~ str ~ ")") if 'value' in names else "cast(null as " ~ str ~ ")" }} as value,
    {{ dbt_deid._text_offset(adapter.quote('start')) }} as span_start,
    {{ dbt_deid._text_offset(adapter.quote('end')) }} as span_end
  from {{ rel }}
),
declared as ({{ dbt_deid.text_types_sql(cfg) }})
select a.doc_id, a.annotation_id, a.type,
  coalesce(t.kind, a.kind) as kind,
  case when a.value is null or trim(a.value) = ''
       then substr(d.text, cast(a.span_start + 1 as {{ dbt.type_int() }}), cast(a.span_end - a.span_start as {{ dbt.type_int() }}))
       else a.value end as value,
  a.span_start, a.span_end
from a
join {{ documents }} as d on d.doc_id = a.doc_id
left join declared as t on t.type = a.type
{%- endmacro %}
