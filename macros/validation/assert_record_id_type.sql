{#- The record id is the record's identity across versions (the store keys a record by a hash
    of its id as text: macros/gates/combined_releases.sql). A floating-point column is not a
    stable identity: 5 and 5.0, or a value rounded by another engine, hash as two records, so a
    recipient's earlier versions would look like other records (issue 32, review hole 1). One
    error naming the model, column and type; nothing is built. Ids reformatted as text (padded,
    trailing spaces) are a re-key the package cannot see (docs/combined-lines.md). -#}
{% macro assert_record_id_type(cfg, columns) -%}
  {%- for c in columns if (c.name | lower) == (cfg.record_id | string | lower) -%}
    {%- set t = (c.dtype or '') | string | lower -%}
    {%- if 'float' in t or 'double' in t or t == 'real' or t.startswith('real') -%}
      {{ exceptions.raise_compiler_error("model " ~ this.identifier ~ ": column '" ~ c.name ~ "' (record_id) is of floating-point type " ~ c.dtype ~ "; a floating-point id is not a stable record identity (5 and 5.0 or a rounded value would be new records in the combined view); cast it to an integer or text in the source") }}
    {%- endif -%}
  {%- endfor -%}
{%- endmacro %}
