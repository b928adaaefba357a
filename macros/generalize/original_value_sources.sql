{#- QI -> the first QI (in the release's order) released from the same source column: the QI
    whose `<qi>__original` column holds its original values in deid_generalized and
    deid_suppressed. A QI that maps to itself has that column; the others read it
    (generalize_sql casts the source column, with the missing label for NULL, so the values
    are the same). The original stage of the risk CDF reads QIs released from one source
    column as one column for the same reason. Columns are the same only when spelt the same:
    an engine with case-sensitive quoted names (PostgreSQL) can hold `"A"` and `"a"` as two
    columns, and merging them would leave one unchecked by the input_unchanged gate; two
    spellings of one column only keep one more column. -#}
{% macro original_value_sources(cfg) -%}
  {%- set first = {} -%}{%- set out = {} -%}
  {%- for q in cfg.qis -%}
    {%- set key = q.column -%}
    {%- if key not in first -%}{%- do first.update({key: q.name}) -%}{%- endif -%}
    {%- do out.update({q.name: first[key]}) -%}
  {%- endfor -%}
  {{ return(out) }}
{%- endmacro %}
