{{ config(enabled=var('deid_text_release', none) is not none) }}
{#- text_detections with every third detection one character short at its end, so some
    multi-token spans are only partly masked and some single-token spans are missed: exercises
    the token-level counting (masking vs typed catches) in the SQL-vs-core comparison. The columns
    start and end quoted by the adapter (backticks on Spark). #}
{%- set s, e = adapter.quote('start'), adapter.quote('end') %}
select doc_id, {{ s }},
  case when row_number() over (order by doc_id, {{ s }}, {{ e }}, detected_type) % 3 = 0
        and {{ e }} - {{ s }} > 1 then {{ e }} - 1 else {{ e }} end as {{ e }},
  detected_type
from {{ ref('text_detections') }}
