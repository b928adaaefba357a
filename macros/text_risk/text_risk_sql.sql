{#- SQL of the text de-identification risk models (Scaiano, El Emam et al. 2016, Scaiano et al. 2016).
    Each macro is dispatched (adapter.dispatch(name, 'dbt_deid')) with a default__ written for
    DuckDB and kept portable: CTEs, window functions, substr, length (dbt.length), string
    concatenation (dbt.concat), ordered string aggregation (dbt.listagg) and a series of
    integers (dbt.generate_series). The one engine-specific piece is the token character test
    text_token_char_sql (default: a regular expression, regexp_matches with RE2 classes
    \p{L}\p{N}); override it for an engine without them. Character offsets are 0-based,
    end-exclusive (Python's), over code points as counted by length(). Identifier values never
    leave the warehouse: these models hold ids, offsets, types, flags and counts, and `value`
    only in the staged annotations and the outcome table. -#}

{#- ---------- staging: clean ids, integer offsets, kinds, filled values ---------- -#}

{% macro text_documents_sql(cfg) -%}
  {{ return(dbt_deid.own(adapter.dispatch('text_documents_sql', 'dbt_deid'))(cfg)) }}
{%- endmacro %}

{% macro default__text_documents_sql(cfg) -%}
select {{ dbt_deid._text_id('doc_id') }} as doc_id,
  coalesce(cast(text as {{ dbt.type_string() }}), '') as text,
  {{ dbt.length("coalesce(cast(text as " ~ dbt.type_string() ~ "), '')") }} as text_length
from {{ dbt_deid.text_input_relation(cfg, 'documents') }}
{%- endmacro %}

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

{#- ---------- step 1: tokens of each annotation span ---------- -#}

{#- Boolean SQL expression: the one-character string `char_expr` is a letter or a digit (a token
    character, Python's [^\W_]). Engines without RE2 Unicode classes override this (e.g.
    `upper(c) <> lower(c) or c between '0' and '9'` covers cased letters and ASCII digits). -#}
{% macro text_token_char_sql(char_expr) -%}
  {{ return(dbt_deid.own(adapter.dispatch('text_token_char_sql', 'dbt_deid'))(char_expr)) }}
{%- endmacro %}

{% macro default__text_token_char_sql(char_expr) -%}
  regexp_matches({{ char_expr }}, '^[\p{L}\p{N}]$')
{%- endmacro %}

{#- PostgreSQL: regexp_matches returns rows of arrays there; the boolean match is `~`, and the
    ICU collation makes [[:alpha:]]/[[:digit:]] Unicode classes (u_isalpha/u_isdigit) whatever
    the database's locale. -#}
{% macro postgres__text_token_char_sql(char_expr) -%}
  ({{ char_expr }} collate "und-x-icu" ~ '^[[:alpha:][:digit:]]$')
{%- endmacro %}

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

{#- ---------- step 3: per-annotation outcomes ---------- -#}

{#- doc_id, annotation_id, type, kind, value, span_start, span_end, tokens, tokens_masked,
    caught (every token masked: masking, section 2.3.2), caught_typed (a detection of the same
    type covers the whole span: conventional recall, equation 1). -#}
{% macro text_annotation_outcomes_sql(annotations, token_outcomes, detections) -%}
  {{ return(dbt_deid.own(adapter.dispatch('text_annotation_outcomes_sql', 'dbt_deid'))(annotations, token_outcomes, detections)) }}
{%- endmacro %}

{% macro default__text_annotation_outcomes_sql(annotations, token_outcomes, detections) -%}
with per_annotation as (
  select doc_id, annotation_id, count(*) as tokens,
    cast(sum(case when masked then 1 else 0 end) as {{ dbt.type_bigint() }}) as tokens_masked
  from {{ token_outcomes }}
  group by doc_id, annotation_id
)
select a.doc_id, a.annotation_id, a.type, a.kind, a.value, a.span_start, a.span_end,
  p.tokens, p.tokens_masked,
  p.tokens_masked = p.tokens as caught,
  case when exists (
    select 1 from {{ detections }} as d
    where d.doc_id = a.doc_id and d.detected_type = a.type
      and d.span_start <= a.span_start and d.span_end >= a.span_end
  ) then true else false end as caught_typed
from {{ annotations }} as a
join per_annotation as p on p.doc_id = a.doc_id and p.annotation_id = a.annotation_id
{%- endmacro %}

{#- ---------- baseline recalls (Table 1, Table 3, Table 6 style) ---------- -#}

{#- One row per type, per kind (type = '*') and overall (kind = type = '*'): instances, tokens,
    documents, micro_recall (conventional, equation 1: typed catches / instances),
    masking_recall (masked tokens / tokens, section 2.3.2) and all_or_nothing_recall (documents
    whose selected instances are all caught / documents with one, section 2.3.1). -#}
{% macro text_recall_sql(outcomes) -%}
  {{ return(dbt_deid.own(adapter.dispatch('text_recall_sql', 'dbt_deid'))(outcomes)) }}
{%- endmacro %}

{% macro default__text_recall_sql(outcomes) -%}
  {#- the grouping keys name only columns: PostgreSQL rejects a constant in GROUP BY -#}
  {%- set groupings = [
      ('type', 'kind', 'type', ['kind', 'type']),
      ('kind', 'kind', "'*'", ['kind']),
      ('all', "'*'", "'*'", []),
  ] -%}
with o as (select * from {{ outcomes }}),
{%- for scope, kind_expr, type_expr, keys in groupings %}
{{ scope }}_docs as (
  select {{ kind_expr }} as kind, {{ type_expr }} as type, doc_id,
    min(case when caught then 1 else 0 end) as all_caught
  from o group by {{ (keys + ['doc_id']) | join(', ') }}
),
{{ scope }}_rows as (
  select {{ dbt_deid.literal(scope) }} as scope, i.kind, i.type, i.instances, i.tokens,
    d.documents,
    1.0 * i.caught_typed / i.instances as micro_recall,
    1.0 * i.tokens_masked / i.tokens as masking_recall,
    1.0 * d.documents_all_caught / d.documents as all_or_nothing_recall
  from (
    select {{ kind_expr }} as kind, {{ type_expr }} as type, count(*) as instances,
      cast(sum(tokens) as {{ dbt.type_bigint() }}) as tokens, sum(tokens_masked) as tokens_masked,
      sum(case when caught_typed then 1 else 0 end) as caught_typed
    from o{% if keys %} group by {{ keys | join(', ') }}{% endif %}
  ) as i
  join (
    select kind, type, count(*) as documents, cast(sum(all_caught) as {{ dbt.type_bigint() }}) as documents_all_caught
    from {{ scope }}_docs group by kind, type
  ) as d on d.kind = i.kind and d.type = i.type
){{ "," if not loop.last }}
{%- endfor %}
{%- for scope, kind_expr, type_expr, keys in groupings %}
select * from {{ scope }}_rows
{%- if not loop.last %} union all{% endif %}
{%- endfor %}
{%- endmacro %}

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

{#- ---------- publishing: replace every detected span by [TYPE] ---------- -#}

{#- doc_id, text (every detected span replaced), spans_replaced. Overlapping or nested
    detections are merged first (gaps and islands on the running maximum end); a merged span
    becomes `[TYPE]` when its detections agree on the type, else `[REDACTED]`. Touching spans
    stay separate. Documents without detections are unchanged. -#}
{% macro text_redact_sql(documents, detections) -%}
  {{ return(dbt_deid.own(adapter.dispatch('text_redact_sql', 'dbt_deid'))(documents, detections)) }}
{%- endmacro %}

{% macro default__text_redact_sql(documents, detections) -%}
  {%- set int = dbt.type_int() -%}
with ordered as (
  select doc_id, span_start, span_end, detected_type,
    max(span_end) over (
      partition by doc_id order by span_start, span_end, detected_type
      rows between unbounded preceding and 1 preceding
    ) as previous_end
  from {{ detections }}
),
flagged as (
  select *, case when previous_end is null or span_start >= previous_end then 1 else 0 end as starts_group
  from ordered
),
grouped as (
  select *, sum(starts_group) over (
      partition by doc_id order by span_start, span_end, detected_type rows unbounded preceding
    ) as group_id
  from flagged
),
merged as (
  select doc_id, group_id, min(span_start) as m_start, max(span_end) as m_end,
    case when min(detected_type) = max(detected_type) then min(detected_type) else 'REDACTED' end as label
  from grouped
  group by doc_id, group_id
),
bounds as (
  select m.*, coalesce(lag(m_end) over (partition by doc_id order by m_start), 0) as kept_from,
    row_number() over (partition by doc_id order by m_start desc) as from_last
  from merged as m
),
pieces as (
  -- text kept before each merged span
  select b.doc_id, b.m_start as pos, 0 as part,
    substr(d.text, cast(b.kept_from + 1 as {{ int }}), cast(b.m_start - b.kept_from as {{ int }})) as piece
  from bounds as b join {{ documents }} as d on d.doc_id = b.doc_id
  union all
  -- the placeholder
  select doc_id, m_start as pos, 1 as part, {{ dbt.concat(["'['", "label", "']'"]) }} as piece
  from bounds
  union all
  -- text kept after the last merged span
  select b.doc_id, d.text_length as pos, 2 as part,
    substr(d.text, cast(b.m_end + 1 as {{ int }}), cast(d.text_length - b.m_end as {{ int }})) as piece
  from bounds as b join {{ documents }} as d on d.doc_id = b.doc_id
  where b.from_last = 1
),
redacted as (
  select doc_id, {{ dbt_deid.ordered_string_agg('piece', ['pos', 'part']) }} as text
  from pieces
  group by doc_id
),
replaced as (
  select doc_id, count(*) as spans_replaced from merged group by doc_id
)
select d.doc_id, coalesce(r.text, d.text) as text, coalesce(c.spans_replaced, 0) as spans_replaced
from {{ documents }} as d
left join redacted as r on r.doc_id = d.doc_id
left join replaced as c on c.doc_id = d.doc_id
{%- endmacro %}
