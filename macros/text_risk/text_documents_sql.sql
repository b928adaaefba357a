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
