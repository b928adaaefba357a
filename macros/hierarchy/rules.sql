{#- Rule-based generalization levels (El Emam et al. 2011 Table 2): numeric intervals with top/bottom
    coding, string prefixes, date truncation. Each returns a SQL expression of type string
    (NULL for a NULL input) for `value_sql` at level `level` (0 = the original value). -#}
{% macro rule_level_sql(rule, level, value_sql) -%}
  {{ return(dbt_deid.own(adapter.dispatch('rule_level_sql', 'dbt_deid'))(rule, level, value_sql)) }}
{%- endmacro %}

{% macro default__rule_level_sql(rule, level, value_sql) -%}
  {%- if level == 0 -%}
    {{ return('cast(' ~ value_sql ~ ' as ' ~ dbt.type_string() ~ ')') }}
  {%- endif -%}
  {%- set spec = rule['levels'][level - 1] -%}
  {%- if rule.type == 'interval' -%}
    {{ return(dbt_deid.interval_sql(spec, value_sql)) }}
  {%- elif rule.type == 'prefix' -%}
    {{ return(dbt_deid.prefix_sql(spec.length, value_sql)) }}
  {%- else -%}
    {{ return(dbt_deid.date_trunc_sql(spec.trunc, value_sql)) }}
  {%- endif -%}
{%- endmacro %}

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

{#- Digits after the decimal point of a number from the settings (0 for whole numbers). -#}
{% macro _decimal_scale(x) -%}
  {%- set t = dbt_deid._decimal_text(x) -%}
  {{ return((t.split('.')[1] | length) if '.' in t else 0) }}
{%- endmacro %}

{#- The exact numeric type interval rules compute in: 20 integer digits, 18 decimals. -#}
{% macro exact_number_type() -%}
  {{ return(dbt_deid.own(adapter.dispatch('exact_number_type', 'dbt_deid'))()) }}
{%- endmacro %}

{% macro default__exact_number_type() -%}
  {{ return('decimal(38, 18)') }}
{%- endmacro %}

{#- A value as an exact decimal (issue 13: a 32-bit float turned 16777217 into 16777216 and
    2.9999999 into 3). Read through its text, so a binary float becomes the decimal it prints
    as (its shortest round-trip form) and integers, decimals and numeric strings are exact; the
    input check (assert_rule_values) rejects what does not convert. -#}
{% macro exact_number_sql(value_sql) -%}
  {{ return(dbt_deid.own(adapter.dispatch('exact_number_sql', 'dbt_deid'))(value_sql)) }}
{%- endmacro %}

{% macro default__exact_number_sql(value_sql) -%}
  {{ return('cast(cast(' ~ value_sql ~ ' as ' ~ dbt.type_string() ~ ') as ' ~ dbt_deid.exact_number_type() ~ ')') }}
{%- endmacro %}

{#- An exact decimal expression known to lie on the grid of `scale` decimals, as text without
    trailing zeros (2.5, 40, -3). -#}
{% macro decimal_label_sql(expr_sql, scale) -%}
  {{ return(dbt_deid.own(adapter.dispatch('decimal_label_sql', 'dbt_deid'))(expr_sql, scale)) }}
{%- endmacro %}

{% macro default__decimal_label_sql(expr_sql, scale) -%}
  {%- set txt = 'cast(cast(' ~ expr_sql ~ ' as decimal(38, ' ~ scale ~ ')) as ' ~ dbt.type_string() ~ ')' -%}
  {%- if scale == 0 -%}{{ return(txt) }}{%- endif -%}
  {{ return("trim(trailing '.' from trim(trailing '0' from " ~ txt ~ "))") }}
{%- endmacro %}

{#- The whole number `numerator / divisor` for exact decimals whose quotient is known to be whole
    (an interval's index), as text. Engines that divide decimals in double precision (DuckDB)
    round the quotient: q0 = round(numerator / divisor) is within a few units of it, and the
    residual (numerator - q0 x divisor) is exact and small, so q0 + round(residual / divisor)
    is the exact quotient for any size. -#}
{% macro whole_quotient_sql(numerator_sql, divisor_sql) -%}
  {{ return(dbt_deid.own(adapter.dispatch('whole_quotient_sql', 'dbt_deid'))(numerator_sql, divisor_sql)) }}
{%- endmacro %}

{% macro default__whole_quotient_sql(numerator_sql, divisor_sql) -%}
  {%- set q0 = 'cast(round((' ~ numerator_sql ~ ') / ' ~ divisor_sql ~ ') as decimal(38, 0))' -%}
  {%- set fix = 'cast(round(((' ~ numerator_sql ~ ') - ' ~ q0 ~ ' * ' ~ divisor_sql ~ ') / ' ~ divisor_sql ~ ') as decimal(38, 0))' -%}
  {{ return('cast(' ~ q0 ~ ' + ' ~ fix ~ ' as ' ~ dbt.type_string() ~ ')') }}
{%- endmacro %}

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

{#- A string prefix of `length` characters (postal code FSA, code prefixes); 0 gives '*'. -#}
{% macro prefix_sql(length, value_sql) -%}
  {{ return(dbt_deid.own(adapter.dispatch('prefix_sql', 'dbt_deid'))(length, value_sql)) }}
{%- endmacro %}

{% macro default__prefix_sql(length, value_sql) -%}
  {%- if length == 0 -%}
    {{ return("case when " ~ value_sql ~ " is null then null else '*' end") }}
  {%- endif -%}
  {{ return('substr(cast(' ~ value_sql ~ ' as ' ~ dbt.type_string() ~ '), 1, ' ~ length ~ ')') }}
{%- endmacro %}

{#- Date truncation to week, month, quarter or year, as an ISO date string. -#}
{% macro date_trunc_sql(unit, value_sql) -%}
  {{ return(dbt_deid.own(adapter.dispatch('date_trunc_sql', 'dbt_deid'))(unit, value_sql)) }}
{%- endmacro %}

{% macro default__date_trunc_sql(unit, value_sql) -%}
  {{ return('cast(cast(' ~ dbt.date_trunc(unit, 'cast(' ~ value_sql ~ ' as date)') ~ ' as date) as ' ~ dbt.type_string() ~ ')') }}
{%- endmacro %}
