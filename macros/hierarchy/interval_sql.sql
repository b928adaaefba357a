{#- An interval level: either equal `width` bins from `offset` (default 0) or explicit
    increasing lower `breaks`; values >= top_code become 'top_code+', values < bottom_code
    become '<bottom_code'. Labels: range ('40-44'; whole widths are inclusive integer ranges),
    lower ('40') or index ('8'). Exact decimal arithmetic (exact_number_sql): a value on a break
    is in the bin starting there, any value below it in the bin before; the bin of a width
    level is floor((value - offset) / width), computed with a floored remainder (no division)
    so negative values and large integers bin exactly, and labels print as exact decimals. -#}
{% macro interval_sql(spec, value_sql) -%}
  {{ return(dbt_deid.own(adapter.dispatch('interval_sql', 'dbt_deid'))(spec, value_sql)) }}
{%- endmacro %}

{% macro default__interval_sql(spec, value_sql) -%}
  {%- set v = dbt_deid.exact_number_sql(value_sql) -%}
  {%- set s = dbt.type_string() -%}
  {%- set label = spec.get('label', 'range') -%}
  {%- set top = spec.get('top_code') -%}
  {%- set bottom = spec.get('bottom_code') -%}
  {%- set sql -%}
  case
    when {{ value_sql }} is null then null
    {%- if top is not none %}
    when {{ v }} >= ({{ dbt_deid._decimal_text(top) }}) then {{ dbt_deid.literal(dbt_deid._decimal_text(top) ~ '+') }}
    {%- endif %}
    {%- if bottom is not none %}
    when {{ v }} < ({{ dbt_deid._decimal_text(bottom) }}) then {{ dbt_deid.literal('<' ~ dbt_deid._decimal_text(bottom)) }}
    {%- endif %}
    {%- if spec.get('breaks') is not none %}
    {%- set breaks = spec.breaks %}
    {%- for i in range(breaks | length - 1, -1, -1) %}
    {%- set lo = breaks[i] %}
    {%- if label == 'index' %}{% set text = i | string %}
    {%- elif label == 'lower' or i == breaks | length - 1 %}{% set text = dbt_deid._decimal_text(lo) ~ ('+' if (label == 'range' and top is none and i == breaks | length - 1) else '') %}
    {%- else %}{% set hi = breaks[i + 1] %}
      {%- if lo is integer and hi is integer %}{% set text = dbt_deid._decimal_text(lo) if hi - lo == 1 else dbt_deid._decimal_text(lo) ~ '-' ~ dbt_deid._decimal_text(hi - 1) %}
      {%- else %}{% set text = dbt_deid._decimal_text(lo) ~ '-' ~ dbt_deid._decimal_text(hi) %}{% endif %}
    {%- endif %}
    when {{ v }} >= ({{ dbt_deid._decimal_text(lo) }}) then {{ dbt_deid.literal(text) }}
    {%- endfor %}
    else {{ dbt_deid.literal('<' ~ dbt_deid._decimal_text(breaks[0])) }}
    {%- else %}
    {%- set w = dbt_deid._decimal_text(spec.width) %}
    {%- set off = dbt_deid._decimal_text(spec.get('offset', 0)) %}
    {%- set scale = [dbt_deid._decimal_scale(spec.width), dbt_deid._decimal_scale(spec.get('offset', 0))] | max %}
    {%- set shifted = v if off == '0' else '(' ~ v ~ ' - (' ~ off ~ '))' %}
    {#- lower bound = value - floored remainder of (value - offset) by the width -#}
    {%- set lower = '(' ~ v ~ ' - mod(mod(' ~ shifted ~ ', (' ~ w ~ ')) + (' ~ w ~ '), (' ~ w ~ ')))' %}
    {%- if label == 'index' %}
    else {{ dbt_deid.whole_quotient_sql('cast(' ~ lower ~ ' as decimal(38, ' ~ scale ~ '))' ~ ('' if off == '0' else ' - (' ~ off ~ ')'), '(' ~ w ~ ')') }}
    {%- elif label == 'lower' or (scale == 0 and w == '1') %}
    else {{ dbt_deid.decimal_label_sql(lower, scale) }}
    {%- elif scale == 0 %}
    else {{ dbt.concat([dbt_deid.decimal_label_sql(lower, 0), "'-'", dbt_deid.decimal_label_sql('(' ~ lower ~ ' + (' ~ dbt_deid._decimal_text(spec.width - 1) ~ '))', 0)]) }}
    {%- else %}
    else {{ dbt.concat([dbt_deid.decimal_label_sql(lower, scale), "'-'", dbt_deid.decimal_label_sql('(' ~ lower ~ ' + (' ~ w ~ '))', scale)]) }}
    {%- endif %}
    {%- endif %}
  end
  {%- endset -%}
  {{ return(sql) }}
{%- endmacro %}
