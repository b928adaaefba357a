{#- The advice on a refused release (issue 35; the advice rows of deid_suppression_map, where
    the model deid_release_advice's rows are since session 13), as the lines the publish
    materialization appends to its refusal message: where the suppression falls per
    quasi-identifier and per combination, and the nearest levels that pass. Figures, limits,
    names and levels only. Empty when the map's table is not there, has no advice columns (a
    map built by an older dbt_deid) or holds no advice line. -#}
{% macro release_advice_message() -%}
  {{ return(dbt_deid.own(adapter.dispatch('release_advice_message', 'dbt_deid'))()) }}
{%- endmacro %}

{% macro default__release_advice_message() -%}
  {%- if not execute -%}{{ return('') }}{%- endif -%}
  {%- set rel = dbt_deid.release_ref('deid_suppression_map') -%}
  {%- set found = load_relation(rel) -%}
  {%- if found is none -%}{{ return('') }}{%- endif -%}
  {%- set names = [] -%}{%- for c in adapter.get_columns_in_relation(found) -%}{%- do names.append(c.name | lower) -%}{%- endfor -%}
  {%- if 'advice__kind' not in names -%}{{ return('') }}{%- endif -%}
  {%- set rows = run_query("select advice__message from " ~ rel ~ " where advice__kind = 'line' order by advice__item").rows -%}
  {%- if rows | length == 0 -%}{{ return('') }}{%- endif -%}
  {%- set lines = [] -%}{%- for r in rows -%}{%- do lines.append(r[0]) -%}{%- endfor -%}
  {{ return("\nAdvice (deid_suppression_map's advice rows; python -m dbt_deid advise previews a change without publishing):\n  " ~ lines | join('\n  ')) }}
{%- endmacro %}
