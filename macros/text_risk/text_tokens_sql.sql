{#- One row per token: doc_id, annotation_id, token_start, token_end (document offsets). A token
    is a maximal run of letters/digits inside the span; a span with none is one token spanning
    it (dbt_deid.text_risk.matching.annotation_tokens). Built character by character (spans are
    short): a series 1..max span length, the token-character test, then gaps and islands. -#}
{% macro text_tokens_sql(documents, annotations) -%}
  {{ return(dbt_deid.own(adapter.dispatch('text_tokens_sql', 'dbt_deid'))(documents, annotations)) }}
{%- endmacro %}

{% macro default__text_tokens_sql(documents, annotations) -%}
  {%- set longest = 1 -%}
  {%- if execute and load_relation(annotations) is not none -%}
    {%- set r = run_query("select max(span_end - span_start) from " ~ annotations).rows -%}
    {%- if r | length > 0 and r[0][0] is not none and r[0][0] > 1 -%}{%- set longest = r[0][0] | int -%}{%- endif -%}
  {%- endif -%}
  {%- set big = dbt.type_bigint() -%}
with series as (
  select cast(generated_number as {{ big }}) as i from ({{ dbt.generate_series(longest) }}) as g
),
chars as (
  select a.doc_id, a.annotation_id, a.span_start + s.i - 1 as pos,
    {{ dbt_deid.text_token_char_sql("substr(d.text, cast(a.span_start + s.i as " ~ dbt.type_int() ~ "), 1)") }} as is_token
  from {{ annotations }} as a
  join {{ documents }} as d on d.doc_id = a.doc_id
  join series as s on s.i <= a.span_end - a.span_start
),
runs as (
  select doc_id, annotation_id, pos,
    pos - row_number() over (partition by doc_id, annotation_id order by pos) as run_id
  from chars
  where is_token
),
tokens as (
  select doc_id, annotation_id, min(pos) as token_start, max(pos) + 1 as token_end
  from runs
  group by doc_id, annotation_id, run_id
)
select doc_id, annotation_id, token_start, token_end from tokens
union all
select a.doc_id, a.annotation_id, a.span_start as token_start, a.span_end as token_end
from {{ annotations }} as a
where not exists (
  select 1 from tokens as t where t.doc_id = a.doc_id and t.annotation_id = a.annotation_id
)
{%- endmacro %}
