{{ config(enabled=var('deid_text_release', none) is not none) }}
{#- The gold annotations with one span pushed beyond its document's end, for the bad-input case
    (point var deid_text_release.annotations here). #}
select doc_id, annotation_id, type, kind, value, "start",
  case when annotation_id = (select min(annotation_id) from {{ ref('text_annotations') }})
       then "end" + 100000 else "end" end as "end"
from {{ ref('text_annotations') }}
