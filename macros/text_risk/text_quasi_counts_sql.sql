{#- ---------- step 5: quasi-identifier counts ---------- -#}

{#- One row: instances, caught, values (distinct doc_id, type, lower(trim(value))), s_q
    (documents with a quasi-identifier); r_q = caught/instances, m = instances/values,
    n_q = values/n (equation 12) are derived in Python. -#}
{% macro text_quasi_counts_sql(outcomes) -%}
  {{ return(dbt_deid.own(adapter.dispatch('text_quasi_counts_sql', 'dbt_deid'))(outcomes)) }}
{%- endmacro %}

{% macro default__text_quasi_counts_sql(outcomes) -%}
with q as (select * from {{ outcomes }} where kind = 'quasi')
select
  (select count(*) from q) as instances,
  (select cast(coalesce(sum(case when caught then 1 else 0 end), 0) as {{ dbt.type_bigint() }}) from q) as caught,
  (select count(*) from (select distinct doc_id, type, lower(trim(value)) as v from q) as v) as {{ adapter.quote('values') }},
  (select count(distinct doc_id) from q) as s_q
{%- endmacro %}
