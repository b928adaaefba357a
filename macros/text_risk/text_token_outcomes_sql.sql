{#- ---------- step 2: a token is masked when one detection (any type) covers it ---------- -#}

{% macro text_token_outcomes_sql(tokens, detections) -%}
  {{ return(dbt_deid.own(adapter.dispatch('text_token_outcomes_sql', 'dbt_deid'))(tokens, detections)) }}
{%- endmacro %}

{% macro default__text_token_outcomes_sql(tokens, detections) -%}
select t.doc_id, t.annotation_id, t.token_start, t.token_end,
  case when exists (
    select 1 from {{ detections }} as d
    where d.doc_id = t.doc_id and d.span_start <= t.token_start and d.span_end >= t.token_end
  ) then true else false end as masked
from {{ tokens }} as t
{%- endmacro %}
