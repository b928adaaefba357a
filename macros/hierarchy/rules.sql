{#- Rule-based generalization levels (seed 000 Table 2): numeric intervals with top/bottom
    coding, string prefixes, date truncation. Each returns a SQL expression of type string
    (NULL for a NULL input) for `value_sql` at level `level` (0 = the original value). -#}
{% macro rule_level_sql(rule, level, value_sql) -%}
  {{ return(adapter.dispatch('rule_level_sql', 'dbt_deid')(rule, level, value_sql)) }}
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

{#- Numbers print without a trailing .0 when they are whole. -#}
{% macro _num(x) -%}
  {%- if x is number and x == (x | int) -%}{{ return(x | int | string) }}{%- else -%}{{ return(x | string) }}{%- endif -%}
{%- endmacro %}

{#- An interval level: either equal `width` bins from `offset` (default 0) or explicit
    increasing lower `breaks`; values >= top_code become 'top_code+', values < bottom_code
    become '<bottom_code'. Labels: range ('40-44'; whole widths are inclusive integer ranges),
    lower ('40') or index ('8'). -#}
{% macro interval_sql(spec, value_sql) -%}
  {{ return(adapter.dispatch('interval_sql', 'dbt_deid')(spec, value_sql)) }}
{%- endmacro %}

{% macro default__interval_sql(spec, value_sql) -%}
  {%- set v = 'cast(' ~ value_sql ~ ' as ' ~ dbt.type_float() ~ ')' -%}
  {%- set s = dbt.type_string() -%}
  {%- set label = spec.get('label', 'range') -%}
  {%- set top = spec.get('top_code') -%}
  {%- set bottom = spec.get('bottom_code') -%}
  {%- set sql -%}
  case
    when {{ value_sql }} is null then null
    {%- if top is not none %}
    when {{ v }} >= {{ top }} then {{ dbt_deid.literal(dbt_deid._num(top) ~ '+') }}
    {%- endif %}
    {%- if bottom is not none %}
    when {{ v }} < {{ bottom }} then {{ dbt_deid.literal('<' ~ dbt_deid._num(bottom)) }}
    {%- endif %}
    {%- if spec.get('breaks') is not none %}
    {%- set breaks = spec.breaks %}
    {%- for i in range(breaks | length - 1, -1, -1) %}
    {%- set lo = breaks[i] %}
    {%- if label == 'index' %}{% set text = i | string %}
    {%- elif label == 'lower' or i == breaks | length - 1 %}{% set text = dbt_deid._num(lo) ~ ('+' if (label == 'range' and top is none and i == breaks | length - 1) else '') %}
    {%- else %}{% set hi = breaks[i + 1] %}
      {%- if lo is integer and hi is integer %}{% set text = dbt_deid._num(lo) if hi - lo == 1 else dbt_deid._num(lo) ~ '-' ~ dbt_deid._num(hi - 1) %}
      {%- else %}{% set text = dbt_deid._num(lo) ~ '-' ~ dbt_deid._num(hi) %}{% endif %}
    {%- endif %}
    when {{ v }} >= {{ lo }} then {{ dbt_deid.literal(text) }}
    {%- endfor %}
    else {{ dbt_deid.literal('<' ~ dbt_deid._num(breaks[0])) }}
    {%- else %}
    {%- set w = spec.width %}
    {%- set off = spec.get('offset', 0) %}
    {%- set idx = 'floor((' ~ v ~ ' - ' ~ off ~ ') / ' ~ w ~ ')' %}
    {%- set lower = '(' ~ idx ~ ' * ' ~ w ~ ' + ' ~ off ~ ')' %}
    {%- if label == 'index' %}
    else cast(cast({{ idx }} as {{ dbt.type_bigint() }}) as {{ s }})
    {%- elif w is integer and off is integer %}
      {%- if label == 'lower' or w == 1 %}
    else cast(cast({{ lower }} as {{ dbt.type_bigint() }}) as {{ s }})
      {%- else %}
    else {{ dbt.concat(['cast(cast(' ~ lower ~ ' as ' ~ dbt.type_bigint() ~ ') as ' ~ s ~ ')', "'-'", 'cast(cast(' ~ lower ~ ' + ' ~ (w - 1) ~ ' as ' ~ dbt.type_bigint() ~ ') as ' ~ s ~ ')']) }}
      {%- endif %}
    {%- elif label == 'lower' %}
    else cast({{ lower }} as {{ s }})
    {%- else %}
    else {{ dbt.concat(['cast(' ~ lower ~ ' as ' ~ s ~ ')', "'-'", 'cast(' ~ lower ~ ' + ' ~ w ~ ' as ' ~ s ~ ')']) }}
    {%- endif %}
    {%- endif %}
  end
  {%- endset -%}
  {{ return(sql) }}
{%- endmacro %}

{#- A string prefix of `length` characters (postal code FSA, code prefixes); 0 gives '*'. -#}
{% macro prefix_sql(length, value_sql) -%}
  {{ return(adapter.dispatch('prefix_sql', 'dbt_deid')(length, value_sql)) }}
{%- endmacro %}

{% macro default__prefix_sql(length, value_sql) -%}
  {%- if length == 0 -%}
    {{ return("case when " ~ value_sql ~ " is null then null else '*' end") }}
  {%- endif -%}
  {{ return('substr(cast(' ~ value_sql ~ ' as ' ~ dbt.type_string() ~ '), 1, ' ~ length ~ ')') }}
{%- endmacro %}

{#- Date truncation to week, month, quarter or year, as an ISO date string. -#}
{% macro date_trunc_sql(unit, value_sql) -%}
  {{ return(adapter.dispatch('date_trunc_sql', 'dbt_deid')(unit, value_sql)) }}
{%- endmacro %}

{% macro default__date_trunc_sql(unit, value_sql) -%}
  {{ return('cast(cast(' ~ dbt.date_trunc(unit, 'cast(' ~ value_sql ~ ' as date)') ~ ' as date) as ' ~ dbt.type_string() ~ ')') }}
{%- endmacro %}
