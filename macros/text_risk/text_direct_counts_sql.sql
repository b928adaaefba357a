{#- One row per direct type: s = documents with the type (s_i, Table 4), s_caught = documents
    where every instance is caught (all-or-nothing, section 2.3.1); w_i = s/n, r_i = s_caught/s
    (equation 10) are derived in Python. -#}
{% macro text_direct_counts_sql(document_type_counts) -%}
  {{ return(dbt_deid.own(adapter.dispatch('text_direct_counts_sql', 'dbt_deid'))(document_type_counts)) }}
{%- endmacro %}

{% macro default__text_direct_counts_sql(document_type_counts) -%}
select type, count(*) as s,
  cast(sum(case when caught = instances then 1 else 0 end) as {{ dbt.type_bigint() }}) as s_caught
from {{ document_type_counts }}
where kind = 'direct'
group by type
{%- endmacro %}
