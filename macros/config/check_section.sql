{#- The parse-time check, from the generated definition dbt_deid.settings_schema(): unknown
    names (with the closest one), renamed names (with the new one), required settings, types.
    Python twin: dbt_deid.settings_check.check_section (test_settings_parity). -#}
{% macro _check_section(kind, where, raw, section) -%}
  {%- set schema = dbt_deid.settings_schema() -%}
  {%- set spec = schema.sections[section] -%}
  {%- set renamed = schema.renamed.get(section, {}) -%}
  {%- set prefix = (where ~ '.') if where else '' -%}
  {%- for key in raw if key not in spec -%}
    {%- if key in renamed -%}
      {%- do dbt_deid._setting_error(kind, prefix ~ key, "'" ~ prefix ~ key ~ "' was renamed to '" ~ prefix ~ renamed[key] ~ "'") -%}
    {%- endif -%}
    {%- set hint = dbt_deid._closest_name(key, spec.keys() | list) -%}
    {%- do dbt_deid._setting_error(kind, prefix ~ key, 'unknown setting' ~ ("; did you mean '" ~ prefix ~ hint ~ "'?" if hint is not none else '') ~ ' (known here: ' ~ (spec.keys() | list | sort | join(', ')) ~ ')') -%}
  {%- endfor -%}
  {%- for key, s in spec.items() if s.get('required') and raw.get(key) is none -%}
    {%- do dbt_deid._setting_error(kind, prefix ~ key, 'is required: ' ~ s.doc) -%}
  {%- endfor -%}
  {%- for key, value in raw.items() if value is not none -%}
    {%- do dbt_deid._check_value(kind, prefix ~ key, value, spec[key]) -%}
  {%- endfor -%}
{%- endmacro %}

{#- One non-null setting at `path` against its spec, its sub-section included. -#}
{% macro _check_value(kind, path, value, spec) -%}
  {%- set message = dbt_deid._value_error(value, spec) -%}
  {%- if message is not none -%}{%- do dbt_deid._setting_error(kind, path, message) -%}{%- endif -%}
  {%- for name, item0 in (value.items() if spec.get('each') else [(none, value)]) if spec.get('section') -%}
    {%- set sub = path ~ (('.' ~ name) if name is not none else '') -%}
    {%- set item = {} if item0 is none and spec.get('each') else item0 -%}
    {%- if item is not mapping -%}{%- do dbt_deid._setting_error(kind, sub, 'must be a mapping, got ' ~ dbt_deid._describe(item)) -%}{%- endif -%}
    {%- do dbt_deid._check_section(kind, sub, item, spec.section) -%}
  {%- endfor -%}
{%- endmacro %}

{#- The parse-time check of a whole var of `kind` (release, claims or text). -#}
{% macro _check_var(kind, raw) -%}
  {%- set k = dbt_deid.settings_schema().kinds[kind] -%}
  {%- if raw is not mapping -%}
    {%- do dbt_deid._setting_error(kind, k.var, 'declare the ' ~ k.label ~ ' as a mapping in var ' ~ k.var) -%}
  {%- endif -%}
  {%- do dbt_deid._check_section(kind, '', raw, k.section) -%}
{%- endmacro %}

{% macro _setting_error(kind, setting, message) -%}
  {{ exceptions.raise_compiler_error("dbt_deid " ~ dbt_deid.settings_schema().kinds[kind].label ~ " setting '" ~ setting ~ "': " ~ message) }}
{%- endmacro %}

{#- The message for a non-null value its spec does not accept, else none (the Python twin is
    dbt_deid.settings_check.value_error; positive comparisons, so NaN fails every numeric type).
    Only the value's type is checked (not every type, with two macro calls, for each of the
    ~700 values of a parse: docs/performance.md, "Suite time, session 15"). -#}
{% macro _value_error(v, spec) -%}
  {%- set t = spec.get('type', 'any') -%}
  {%- set num = v is number and v is not boolean -%}
  {%- set ok = (num and v >= 0 and v <= 1) if t == 'fraction' else (num and v > 0 and v <= 1) if t == 'rate'
      else (num and v > 0 and v * 0 == 0) if t == 'positive' else (num and v * 0 == 0) if t == 'number' else (num and v > 0 and v <= 100) if t == 'percentile'
      else (v is integer and v is not boolean and v >= spec.get('min', v)) if t == 'integer'
      else (v is boolean) if t == 'boolean' else (v is string and v | trim | length > 0) if t == 'string'
      else ((v is string and v | length > 0) or (v is mapping and v.get('source_name') is string and v.get('table') is string)) if t == 'relation'
      else (dbt_deid._is_list(v) and v | reject('string') | list | length == 0 and '' not in v and v | map('lower') | unique | list | length == v | length) if t == 'columns'
      else (v is mapping) if t == 'mapping' else dbt_deid._is_list(v) if t == 'list'
      else (v is string and modules.re.fullmatch('[A-Za-z_][A-Za-z0-9_]*', v) is not none) if t == 'env_name' else true -%}
  {%- if not ok -%}
    {{ return('must be ' ~ dbt_deid.settings_schema().types[t] ~ ((' >= ' ~ spec.min) if 'min' in spec else '') ~ ('' if t == 'env_name' else ', got ' ~ dbt_deid._describe(v))) }}
  {%- endif -%}
  {%- set allowed = spec.get('allowed') -%}
  {%- if allowed is not none and (v not in allowed or (v is boolean) != (allowed[0] is boolean)) -%}
    {{ return('must be one of ' ~ allowed | map('lower' if allowed[0] is boolean else 'string') | join(', ') ~ ', got ' ~ dbt_deid._describe(v)) }}
  {%- endif -%}
  {{ return(none) }}
{%- endmacro %}

{#- How an error shows a value (the Python twin is dbt_deid.settings_check.describe). -#}
{% macro _describe(v) -%}
  {%- if v is string -%}{{ return("'" ~ v ~ "' (a string)") }}{%- endif -%}
  {%- if v is boolean -%}{{ return('true' if v else 'false') }}{%- endif -%}
  {%- if v is none -%}{{ return('null') }}{%- endif -%}
  {%- if v is mapping -%}{{ return('a mapping') }}{%- endif -%}
  {%- if dbt_deid._is_list(v) -%}{{ return('a list') }}{%- endif -%}
  {{ return(v ~ '') }}
{%- endmacro %}
