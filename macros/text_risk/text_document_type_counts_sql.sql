{#- ---------- step 4: direct-identifier counts ---------- -#}

{#- Instances and caught instances per document and type: doc_id, type, kind, instances,
    caught (dbt_deid.text_risk.counting.document_type_counts). -#}
{% macro text_document_type_counts_sql(outcomes) -%}
  {{ return(dbt_deid.own(adapter.dispatch('text_document_type_counts_sql', 'dbt_deid'))(outcomes)) }}
{%- endmacro %}

{% macro default__text_document_type_counts_sql(outcomes) -%}
select doc_id, type, kind, count(*) as instances,
  cast(sum(case when caught then 1 else 0 end) as {{ dbt.type_bigint() }}) as caught
from {{ outcomes }}
group by doc_id, type, kind
{%- endmacro %}
