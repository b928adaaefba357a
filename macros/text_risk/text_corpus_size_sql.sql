{#- ---------- step 6: n ---------- -#}

{#- One row: n (documents, Table 4), annotated_documents, annotations, detections. -#}
{% macro text_corpus_size_sql(documents, annotations, detections) -%}
  {{ return(dbt_deid.own(adapter.dispatch('text_corpus_size_sql', 'dbt_deid'))(documents, annotations, detections)) }}
{%- endmacro %}

{% macro default__text_corpus_size_sql(documents, annotations, detections) -%}
select
  (select count(*) from {{ documents }}) as n,
  (select count(distinct doc_id) from {{ annotations }}) as annotated_documents,
  (select count(*) from {{ annotations }}) as annotations,
  (select count(*) from {{ detections }}) as detections
{%- endmacro %}
