{#- Parse and validate the text release declared in var('deid_text_release') (or passed in).
    Every bad value raises one compiler error naming the setting. Returns a normalized dict:
    name, documents, annotations, detections (model/seed names or {source_name, table}), types
    (mapping type -> direct|quasi, or none), h, tau, attempt ([low, mode, high] or none),
    iterations, seed, direct_cutoff, quasi_cutoff, allow_unannotated. Defaults are the core's
    (dbt_deid.text_risk: h = 0.1, tau = 0.05, cut-offs 0.9 / 0.7, public release). -#}
{% macro text_release_config(release=none) -%}
  {{ return(dbt_deid.own(adapter.dispatch('text_release_config', 'dbt_deid'))(release)) }}
{%- endmacro %}

{% macro _text_config_error(setting, message) -%}
  {{ exceptions.raise_compiler_error("dbt_deid text release setting '" ~ setting ~ "': " ~ message) }}
{%- endmacro %}

{#- Names, types and defaults come from the one definition (dbt_deid._check_var, the `text`
    section of src/dbt_deid/settings_schema.py; dbt_deid.settings_resolve.text_settings is the
    Python twin of what is left here). -#}
{% macro default__text_release_config(release) -%}
  {%- set raw = release if release is not none else var('deid_text_release', none) -%}
  {%- do dbt_deid._check_var('text', raw) -%}
  {%- set s = {} -%}
  {%- for key in dbt_deid.settings_schema().sections.text -%}
    {%- do s.update({key: dbt_deid._setting(raw, 'text', key)}) -%}
  {%- endfor -%}
  {%- for t, k in (s.types or {}).items() if k not in ['direct', 'quasi'] -%}
    {{ dbt_deid._text_config_error('types.' ~ t, 'must be direct or quasi, got ' ~ dbt_deid._describe(k)) }}
  {%- endfor -%}
  {%- set attempt = s.attempt -%}
  {%- if attempt is not none -%}
    {%- if attempt | length != 3 -%}
      {{ dbt_deid._text_config_error('attempt', 'must be [low, mode, high] of Pr(attempt), numbers in [0, 1], or null (public release)') }}
    {%- endif -%}
    {%- for a in attempt if dbt_deid._value_error(a, {'type': 'fraction'}) is not none -%}
      {{ dbt_deid._text_config_error('attempt', 'must be [low, mode, high] of Pr(attempt), numbers in [0, 1], or null (public release)') }}
    {%- endfor -%}
    {%- if not (attempt[0] <= attempt[1] <= attempt[2]) -%}
      {{ dbt_deid._text_config_error('attempt', 'needs low <= mode <= high, got ' ~ attempt | join(', ')) }}
    {%- endif -%}
    {%- do s.update({'attempt': attempt | list}) -%}
  {%- endif -%}
  {{ return(s) }}
{%- endmacro %}

{#- True when the project declares a text release (var deid_text_release); the package's text
    models are disabled otherwise. -#}
{% macro text_release_enabled() -%}
  {{ return(dbt_deid.own(adapter.dispatch('text_release_enabled', 'dbt_deid'))()) }}
{%- endmacro %}

{% macro default__text_release_enabled() -%}
  {{ return(var('deid_text_release', none) is not none) }}
{%- endmacro %}

{#- The relation of one input table ('documents', 'annotations' or 'detections'):
    ref(name) or source(source_name, table). -#}
{% macro text_input_relation(cfg, table) -%}
  {{ return(dbt_deid.own(adapter.dispatch('text_input_relation', 'dbt_deid'))(cfg, table)) }}
{%- endmacro %}

{% macro default__text_input_relation(cfg, table) -%}
  {%- set name = cfg[table] -%}
  {%- if name is mapping -%}
    {{ return(source(name.source_name, name.table)) }}
  {%- else -%}
    {{ return(ref(name)) }}
  {%- endif -%}
{%- endmacro %}

{#- The declared type registry as a relation (type, kind) for joins; none without `types`. -#}
{% macro text_types_sql(cfg) -%}
  {{ return(dbt_deid.own(adapter.dispatch('text_types_sql', 'dbt_deid'))(cfg)) }}
{%- endmacro %}

{% macro default__text_types_sql(cfg) -%}
  {%- set rows = [] -%}
  {%- for t, k in (cfg.types or {}).items() -%}
    {%- do rows.append('select ' ~ dbt_deid.literal(t) ~ ' as type, ' ~ dbt_deid.literal(k) ~ ' as kind') -%}
  {%- endfor -%}
  {%- if rows | length == 0 -%}
    {{ return("select cast(null as " ~ dbt.type_string() ~ ") as type, cast(null as " ~ dbt.type_string() ~ ") as kind where 1 = 0") }}
  {%- endif -%}
  {{ return(rows | join(' union all ')) }}
{%- endmacro %}
