{#- A number from the settings as plain decimal text, exactly as written: 40 for 40 and 40.0,
    2.5, 0.00001 for 1e-05 (no exponent, no float noise). Used both as a label and as an exact
    SQL numeric literal. -#}
{% macro _decimal_text(x) -%}
  {%- if x is integer -%}{{ return(x | string) }}{%- endif -%}
  {%- set t = x | string | lower -%}
  {%- if 'e' in t -%}
    {%- set parts = t.split('e') -%}
    {%- set mant = parts[0] -%}
    {%- set sign = '-' if mant.startswith('-') else '' -%}
    {%- set mant = mant.lstrip('-') -%}
    {%- set ip = mant.split('.')[0] -%}
    {%- set fp = mant.split('.')[1] if '.' in mant else '' -%}
    {%- set digits = ip ~ fp -%}
    {%- set point = (ip | length) + (parts[1] | int) -%}
    {%- if point <= 0 -%}
      {%- set t = sign ~ '0.' ~ ('0' * (0 - point)) ~ digits -%}
    {%- elif point >= digits | length -%}
      {%- set t = sign ~ digits ~ ('0' * (point - (digits | length))) -%}
    {%- else -%}
      {%- set t = sign ~ digits[:point] ~ '.' ~ digits[point:] -%}
    {%- endif -%}
  {%- endif -%}
  {%- if '.' in t -%}{%- set t = t.rstrip('0').rstrip('.') -%}{%- endif -%}
  {%- set neg = t.startswith('-') -%}
  {%- set t = t.lstrip('-') -%}
  {%- set t = (t.lstrip('0') or '0') if not t.startswith('0.') else t -%}
  {%- set t = ('0' ~ t) if t.startswith('.') else t -%}
  {{ return(('-' ~ t) if neg and t != '0' else t) }}
{%- endmacro %}
