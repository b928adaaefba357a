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

{% macro _is_relation_name(value) -%}
  {{ return((value is string and value | length > 0)
            or (value is mapping and value.get('source_name') is string and value.get('table') is string)) }}
{%- endmacro %}

{% macro default__text_release_config(release) -%}
  {%- set raw = release if release is not none else var('deid_text_release', none) -%}
  {%- if raw is none or raw is not mapping -%}
    {{ dbt_deid._text_config_error('deid_text_release', 'declare the text release as a mapping in var deid_text_release') }}
  {%- endif -%}
  {%- set known = ['name', 'documents', 'annotations', 'detections', 'types', 'h', 'tau', 'attempt',
                   'iterations', 'seed', 'direct_cutoff', 'quasi_cutoff', 'allow_unannotated'] -%}
  {%- for key in raw -%}
    {%- if key not in known -%}
      {%- set hint = dbt_deid._closest_name(key, known) -%}
      {{ dbt_deid._text_config_error(key, 'unknown setting' ~ ("; did you mean '" ~ hint ~ "'?" if hint is not none else '') ~ ' (known settings are ' ~ known | join(', ') ~ ')') }}
    {%- endif -%}
  {%- endfor -%}
  {%- for key in ['documents', 'annotations', 'detections'] -%}
    {%- if not dbt_deid._is_relation_name(raw.get(key)) -%}
      {{ dbt_deid._text_config_error(key, 'must be a model/seed name or {source_name: ..., table: ...}') }}
    {%- endif -%}
  {%- endfor -%}
  {%- set types = raw.get('types') -%}
  {%- if types is not none -%}
    {%- if types is not mapping or types | length == 0 -%}
      {{ dbt_deid._text_config_error('types', 'must be a non-empty mapping of annotation type -> direct or quasi') }}
    {%- endif -%}
    {%- for t, k in types.items() -%}
      {%- if k not in ['direct', 'quasi'] -%}
        {{ dbt_deid._text_config_error('types.' ~ t, 'must be direct or quasi, got ' ~ k) }}
      {%- endif -%}
    {%- endfor -%}
  {%- endif -%}
  {%- set h = raw.get('h', 0.1) -%}
  {%- if not dbt_deid._is_fraction(h) -%}
    {{ dbt_deid._text_config_error('h', 'must be a number in [0, 1] (1 = no re-synthesis adjustment), got ' ~ h) }}
  {%- endif -%}
  {%- set tau = raw.get('tau', 0.05) -%}
  {%- if tau is not number or tau is boolean or tau <= 0 or tau > 1 -%}
    {{ dbt_deid._text_config_error('tau', 'must be a number in (0, 1], got ' ~ tau) }}
  {%- endif -%}
  {%- set attempt = raw.get('attempt') -%}
  {%- if attempt is not none -%}
    {%- if not dbt_deid._is_list(attempt) or attempt | length != 3 -%}
      {{ dbt_deid._text_config_error('attempt', 'must be [low, mode, high] of Pr(attempt) or null (public release)') }}
    {%- endif -%}
    {%- for a in attempt -%}
      {%- if not dbt_deid._is_fraction(a) -%}
        {{ dbt_deid._text_config_error('attempt', 'values must be numbers in [0, 1], got ' ~ a) }}
      {%- endif -%}
    {%- endfor -%}
    {%- if not (attempt[0] <= attempt[1] <= attempt[2]) -%}
      {{ dbt_deid._text_config_error('attempt', 'needs low <= mode <= high, got ' ~ attempt | join(', ')) }}
    {%- endif -%}
  {%- endif -%}
  {%- set iterations = raw.get('iterations', 100000) -%}
  {%- if iterations is not integer or iterations is boolean or iterations < 1 -%}
    {{ dbt_deid._text_config_error('iterations', 'must be a positive integer (Monte Carlo draws), got ' ~ iterations) }}
  {%- endif -%}
  {%- set seed = raw.get('seed', 0) -%}
  {%- if seed is not integer or seed is boolean or seed < 0 -%}
    {{ dbt_deid._text_config_error('seed', 'must be a non-negative integer, got ' ~ seed) }}
  {%- endif -%}
  {%- set cutoffs = {} -%}
  {%- for key, default in [('direct_cutoff', 0.9), ('quasi_cutoff', 0.7)] -%}
    {%- set v = raw.get(key, default) -%}
    {%- if not dbt_deid._is_fraction(v) -%}
      {{ dbt_deid._text_config_error(key, 'must be a number in [0, 1], got ' ~ v) }}
    {%- endif -%}
    {%- do cutoffs.update({key: v}) -%}
  {%- endfor -%}
  {%- set allow = raw.get('allow_unannotated', false) -%}
  {%- if allow is not boolean -%}
    {{ dbt_deid._text_config_error('allow_unannotated', 'must be true or false, got ' ~ allow) }}
  {%- endif -%}
  {%- set name = raw.get('name', 'text_release') -%}
  {%- if name is not string or name | length == 0 -%}
    {{ dbt_deid._text_config_error('name', 'must be a non-empty string') }}
  {%- endif -%}
  {{ return({
      'name': name, 'documents': raw.documents, 'annotations': raw.annotations,
      'detections': raw.detections, 'types': types, 'h': h, 'tau': tau,
      'attempt': (attempt | list) if attempt is not none else none, 'iterations': iterations,
      'seed': seed, 'direct_cutoff': cutoffs.direct_cutoff, 'quasi_cutoff': cutoffs.quasi_cutoff,
      'allow_unannotated': allow,
  }) }}
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
