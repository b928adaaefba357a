{#- Run-time checks of the three text inputs, made before deid_text_documents is built. Each
    problem fails with one message naming the model, the input table, the column and the
    offending value -- but only ids (document id, annotation id, detection row), offsets, counts
    and type names, never identifier values or document text. Mirrors
    dbt_deid.text_risk.inputs.validate_inputs: required columns; documents not empty, doc_id
    non-empty and unique; annotation ids non-empty and unique per document; kind direct/quasi
    and one kind per type (agreeing with `types` when declared); integer spans with
    0 <= start < end <= length(text) on a known document; annotation types declared (when
    `types` is given); every document annotated unless allow_unannotated; detections on known
    documents with valid spans and a known detected_type. -#}
{% macro assert_text_inputs(cfg) -%}
  {{ return(dbt_deid.own(adapter.dispatch('assert_text_inputs', 'dbt_deid'))(cfg)) }}
{%- endmacro %}

{% macro default__assert_text_inputs(cfg) -%}
  {%- set model = "model " ~ this.identifier -%}
  {%- set q = adapter.quote -%}
  {%- set docs = dbt_deid.text_input_relation(cfg, 'documents') -%}
  {%- set anns = dbt_deid.text_input_relation(cfg, 'annotations') -%}
  {%- set dets = dbt_deid.text_input_relation(cfg, 'detections') -%}
  {#- not under compile/docs/ls (dbt_deid.run_data_checks), nor under `--empty`: nothing to check -#}
  {%- if not dbt_deid.run_data_checks() or flags.EMPTY -%}{{ return(none) }}{%- endif -%}
  {%- set label = {'documents': dbt_deid._text_input_label(cfg, 'documents'),
                   'annotations': dbt_deid._text_input_label(cfg, 'annotations'),
                   'detections': dbt_deid._text_input_label(cfg, 'detections')} -%}

  {#- 1. required columns -#}
  {%- set ann_required = ['doc_id', 'annotation_id', 'type', 'start', 'end'] + ([] if cfg.types else ['kind']) -%}
  {%- set have = {} -%}
  {%- for table, rel, required in [('documents', docs, ['doc_id', 'text']),
                                   ('annotations', anns, ann_required),
                                   ('detections', dets, ['doc_id', 'start', 'end', 'detected_type'])] -%}
    {%- set names = adapter.get_columns_in_relation(rel) | map(attribute='name') | map('lower') | list -%}
    {%- do have.update({table: names}) -%}
    {%- for col in required -%}
      {%- if col not in names -%}
        {{ exceptions.raise_compiler_error(model ~ ": " ~ label[table] ~ " lacks column '" ~ col ~ "' (columns: " ~ names | join(', ') ~ ")") }}
      {%- endif -%}
    {%- endfor -%}
  {%- endfor -%}
  {%- set has_kind = 'kind' in have.annotations -%}

  {#- 2. documents -#}
  {%- set r = dbt_deid._text_first_row("select count(*), count(distinct " ~ dbt_deid._text_id('doc_id') ~ "), sum(case when doc_id is null or " ~ dbt_deid._text_id('doc_id') ~ " = '' then 1 else 0 end) from " ~ docs) -%}
  {%- if r[0] == 0 -%}
    {{ exceptions.raise_compiler_error(model ~ ": " ~ label.documents ~ " has no rows; nothing to assess") }}
  {%- endif -%}
  {%- if r[2] > 0 -%}
    {{ exceptions.raise_compiler_error(model ~ ": " ~ label.documents ~ " column 'doc_id': empty value in " ~ r[2] ~ " row(s)") }}
  {%- endif -%}
  {%- if r[1] != r[0] -%}
    {%- set d = dbt_deid._text_first_row("select " ~ dbt_deid._text_id('doc_id') ~ " from " ~ docs ~ " group by 1 having count(*) > 1 order by 1 limit 1") -%}
    {{ exceptions.raise_compiler_error(model ~ ": " ~ label.documents ~ " column 'doc_id': value '" ~ d[0] ~ "' repeats") }}
  {%- endif -%}

  {#- 3. annotations: ids, kind, offsets -#}
  {%- for col in ['doc_id', 'annotation_id', 'type'] -%}
    {%- set r = dbt_deid._text_first_row("select count(*) from " ~ anns ~ " where " ~ col ~ " is null or " ~ dbt_deid._text_id(col) ~ " = ''") -%}
    {%- if r[0] > 0 -%}
      {{ exceptions.raise_compiler_error(model ~ ": " ~ label.annotations ~ " column '" ~ col ~ "': empty value in " ~ r[0] ~ " row(s)") }}
    {%- endif -%}
  {%- endfor -%}
  {%- set r = dbt_deid._text_first_row("select " ~ dbt_deid._text_id('doc_id') ~ ", " ~ dbt_deid._text_id('annotation_id') ~ " from " ~ anns ~ " group by 1, 2 having count(*) > 1 order by 1, 2 limit 1") -%}
  {%- if r is not none -%}
    {{ exceptions.raise_compiler_error(model ~ ": " ~ label.annotations ~ " column 'annotation_id': value '" ~ r[1] ~ "' repeats in document '" ~ r[0] ~ "'") }}
  {%- endif -%}
  {%- if has_kind -%}
    {%- set r = dbt_deid._text_first_row("select " ~ dbt_deid._text_id('doc_id') ~ ", " ~ dbt_deid._text_id('annotation_id') ~ ", lower(" ~ dbt_deid._text_id('kind') ~ ") from " ~ anns ~ " where kind is not null and lower(" ~ dbt_deid._text_id('kind') ~ ") not in ('direct', 'quasi') order by 1, 2 limit 1") -%}
    {%- if r is not none -%}
      {{ exceptions.raise_compiler_error(model ~ ": " ~ label.annotations ~ " column 'kind': value '" ~ r[2] ~ "' is not direct or quasi (annotation '" ~ r[1] ~ "' of document '" ~ r[0] ~ "')") }}
    {%- endif -%}
    {%- if not cfg.types -%}
      {%- set r = dbt_deid._text_first_row("select " ~ dbt_deid._text_id('doc_id') ~ ", " ~ dbt_deid._text_id('annotation_id') ~ " from " ~ anns ~ " where kind is null order by 1, 2 limit 1") -%}
      {%- if r is not none -%}
        {{ exceptions.raise_compiler_error(model ~ ": " ~ label.annotations ~ " column 'kind': empty value (annotation '" ~ r[1] ~ "' of document '" ~ r[0] ~ "'); give direct or quasi, or declare types") }}
      {%- endif -%}
    {%- endif -%}
  {%- endif -%}
  {%- for table, rel, key in [('annotations', anns, dbt_deid._text_id('annotation_id')), ('detections', dets, "cast(row_number() over (order by " ~ dbt_deid._text_id('doc_id') ~ ", " ~ q('start') ~ ", " ~ q('end') ~ ") as " ~ dbt.type_string() ~ ")")] -%}
    {%- set key_name = 'annotation' if table == 'annotations' else 'detection row' -%}
    {%- set spans -%}
      select doc_id, row_key, raw_start, raw_end, span_start, span_end, d.doc_length, d.known
      from (
        select {{ dbt_deid._text_id('doc_id') }} as doc_id, {{ key }} as row_key,
          cast({{ q('start') }} as {{ dbt.type_string() }}) as raw_start,
          cast({{ q('end') }} as {{ dbt.type_string() }}) as raw_end,
          {{ dbt_deid._text_offset(q('start')) }} as span_start,
          {{ dbt_deid._text_offset(q('end')) }} as span_end
        from {{ rel }}
      ) as s
      left join (
        select {{ dbt_deid._text_id('doc_id') }} as d_id, {{ dbt.length("coalesce(text, '')") }} as doc_length, 1 as known
        from {{ docs }}
      ) as d on d.d_id = s.doc_id
    {%- endset -%}
    {%- if table == 'detections' -%}
      {%- for col in ['doc_id', 'detected_type'] -%}
        {%- set r = dbt_deid._text_first_row("select count(*) from " ~ dets ~ " where " ~ col ~ " is null or " ~ dbt_deid._text_id(col) ~ " = ''") -%}
        {%- if r[0] > 0 -%}
          {{ exceptions.raise_compiler_error(model ~ ": " ~ label.detections ~ " column '" ~ col ~ "': empty value in " ~ r[0] ~ " row(s)") }}
        {%- endif -%}
      {%- endfor -%}
    {%- endif -%}
    {%- set checks = [
        ("span_start is null or span_start < 0", "start", "raw_start", "is not a non-negative integer character offset"),
        ("span_end is null or span_end < 0", "end", "raw_end", "is not a non-negative integer character offset"),
        ("known is null", "doc_id", "doc_id", "is not in " ~ label.documents),
        ("span_start >= span_end", "end", "raw_end", "is not greater than start"),
        ("span_end > doc_length", "end", "raw_end", "exceeds the document length"),
    ] -%}
    {%- for cond, col, shown, what in checks -%}
      {%- set r = dbt_deid._text_first_row("select doc_id, row_key, " ~ shown ~ ", doc_length, count(*) over () from (" ~ spans ~ ") as c where " ~ cond ~ " order by doc_id, row_key limit 1") -%}
      {%- if r is not none -%}
        {%- set detail = (" " ~ r[3]) if 'length' in what else "" -%}
        {{ exceptions.raise_compiler_error(model ~ ": " ~ label[table] ~ " column '" ~ col ~ "': value '" ~ r[2] ~ "' " ~ what ~ detail ~ " (" ~ key_name ~ " '" ~ r[1] ~ "' of document '" ~ r[0] ~ "'; " ~ r[4] ~ " such row(s))") }}
      {%- endif -%}
    {%- endfor -%}
  {%- endfor -%}

  {#- 4. types and kinds -#}
  {%- set kind_expr = ("lower(" ~ dbt_deid._text_id('kind') ~ ")") if has_kind else "cast(null as " ~ dbt.type_string() ~ ")" -%}
  {%- set type_kinds -%}
    select distinct {{ dbt_deid._text_id('type') }} as type, {{ kind_expr }} as kind from {{ anns }}
  {%- endset -%}
  {%- if cfg.types -%}
    {%- set r = dbt_deid._text_first_row("select a.type, count(*) over () from (select distinct type from (" ~ type_kinds ~ ") as t) as a left join (" ~ dbt_deid.text_types_sql(cfg) ~ ") as d on d.type = a.type where d.type is null order by 1 limit 1") -%}
    {%- if r is not none -%}
      {{ exceptions.raise_compiler_error(model ~ ": " ~ label.annotations ~ " column 'type': value '" ~ r[0] ~ "' is not a declared type (setting types: " ~ cfg.types.keys() | sort | join(', ') ~ ")") }}
    {%- endif -%}
    {%- if has_kind -%}
      {%- set r = dbt_deid._text_first_row("select a.type, a.kind, d.kind from (" ~ type_kinds ~ ") as a join (" ~ dbt_deid.text_types_sql(cfg) ~ ") as d on d.type = a.type where a.kind is not null and a.kind <> d.kind order by 1 limit 1") -%}
      {%- if r is not none -%}
        {{ exceptions.raise_compiler_error(model ~ ": " ~ label.annotations ~ " column 'kind': type '" ~ r[0] ~ "' is tagged '" ~ r[1] ~ "' but declared '" ~ r[2] ~ "' in setting types") }}
      {%- endif -%}
    {%- endif -%}
  {%- else -%}
    {%- set r = dbt_deid._text_first_row("select type, min(kind), max(kind) from (" ~ type_kinds ~ ") as t group by type having count(distinct kind) > 1 order by 1 limit 1") -%}
    {%- if r is not none -%}
      {{ exceptions.raise_compiler_error(model ~ ": " ~ label.annotations ~ " column 'kind': type '" ~ r[0] ~ "' is tagged both '" ~ r[1] ~ "' and '" ~ r[2] ~ "'") }}
    {%- endif -%}
  {%- endif -%}
  {%- set known_types = dbt_deid.text_types_sql(cfg) if cfg.types else "select distinct " ~ dbt_deid._text_id('type') ~ " as type from " ~ anns -%}
  {%- set r = dbt_deid._text_first_row("select t.detected_type, count(*) over () from (select distinct " ~ dbt_deid._text_id('detected_type') ~ " as detected_type from " ~ dets ~ ") as t left join (" ~ known_types ~ ") as k on k.type = t.detected_type where k.type is null order by 1 limit 1") -%}
  {%- if r is not none -%}
    {{ exceptions.raise_compiler_error(model ~ ": " ~ label.detections ~ " column 'detected_type': value '" ~ r[0] ~ "' is not a known annotation type (" ~ r[1] ~ " unknown type(s))") }}
  {%- endif -%}

  {#- 5. every document annotated -#}
  {%- if not cfg.allow_unannotated -%}
    {%- set r = dbt_deid._text_first_row("select d.doc_id, count(*) over () from (select " ~ dbt_deid._text_id('doc_id') ~ " as doc_id from " ~ docs ~ ") as d left join (select distinct " ~ dbt_deid._text_id('doc_id') ~ " as doc_id from " ~ anns ~ ") as a on a.doc_id = d.doc_id where a.doc_id is null order by 1 limit 1") -%}
    {%- if r is not none -%}
      {{ exceptions.raise_compiler_error(model ~ ": " ~ label.documents ~ " column 'doc_id': value '" ~ r[0] ~ "' has no rows in " ~ label.annotations ~ " (" ~ r[1] ~ " such document(s)); annotate it or set allow_unannotated: true") }}
    {%- endif -%}
  {%- endif -%}
{%- endmacro %}
