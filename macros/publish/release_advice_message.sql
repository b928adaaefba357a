{#- The advice on a refused release (deid_release_advice, issue 35), as the lines the publish
    materialization appends to its refusal message: where the suppression falls per
    quasi-identifier and per combination, and the nearest levels that pass. Figures, limits,
    names and levels only. Empty when the advice table is not there (a build that did not
    compute it) or holds no line. -#}
{% macro release_advice_message() -%}
  {{ return(dbt_deid.own(adapter.dispatch('release_advice_message', 'dbt_deid'))()) }}
{%- endmacro %}

{% macro default__release_advice_message() -%}
  {%- if not execute -%}{{ return('') }}{%- endif -%}
  {%- set rel = dbt_deid.release_ref('deid_release_advice') -%}
  {%- if load_relation(rel) is none -%}{{ return('') }}{%- endif -%}
  {%- set rows = run_query("select message from " ~ rel ~ " where kind = 'line' order by item").rows -%}
  {%- if rows | length == 0 -%}{{ return('') }}{%- endif -%}
  {%- set lines = [] -%}{%- for r in rows -%}{%- do lines.append(r[0]) -%}{%- endfor -%}
  {{ return("\nAdvice (deid_release_advice; python -m dbt_deid advise previews a change without publishing):\n  " ~ lines | join('\n  ')) }}
{%- endmacro %}
