{#- Levenshtein distance; the Python twin is dbt_deid.settings_schema.edit_distance. -#}
{% macro _edit_distance(a, b) -%}
  {%- set ns = namespace(prev=range((b | length) + 1) | list) -%}
  {%- for i in range(1, (a | length) + 1) -%}
    {%- set cur = [i] -%}
    {%- for j in range(1, (b | length) + 1) -%}
      {%- do cur.append([ns.prev[j] + 1, cur[j - 1] + 1, ns.prev[j - 1] + (0 if a[i - 1] == b[j - 1] else 1)] | min) -%}
    {%- endfor -%}
    {%- set ns.prev = cur -%}
  {%- endfor -%}
  {{ return(ns.prev[-1]) }}
{%- endmacro %}

{#- The known name within max(2, len // 3) edits (ties: sorted), or none (Python: closest_name). -#}
{% macro _closest_name(name, known) -%}
  {%- set ns = namespace(best=none, d=none) -%}
  {%- for k in known | sort -%}
    {%- set d = dbt_deid._edit_distance(name | string, k) -%}
    {%- if ns.d is none or d < ns.d -%}{%- set ns.best = k -%}{%- set ns.d = d -%}{%- endif -%}
  {%- endfor -%}
  {%- if ns.best is none or ns.d > [2, ((name | string | length) / 3) | int] | max -%}{{ return(none) }}{%- endif -%}
  {{ return(ns.best) }}
{%- endmacro %}
