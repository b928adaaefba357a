{#- var('deid_releases'): a mapping of release names (pattern and length from the definition). -#}
{% macro extra_releases() -%}
  {%- set extra = var('deid_releases', none) -%}
  {%- if extra is none -%}{{ return({}) }}{%- endif -%}
  {%- if extra is not mapping -%}
    {{ exceptions.raise_compiler_error("dbt_deid setting 'deid_releases': must be a mapping release name -> release settings") }}
  {%- endif -%}
  {{ return(extra) }}
{%- endmacro %}

{% macro _check_extra_release(key, raw) -%}
  {%- set where = 'deid_releases.' ~ key -%}
  {%- if key is not string or not modules.re.fullmatch(dbt_deid._release_name_pattern(), key) or key | length > dbt_deid.settings_schema().max_release_name -%}
    {{ exceptions.raise_compiler_error("dbt_deid setting 'deid_releases': release name " ~ dbt_deid.literal(key | string) ~ " is not allowed: a name is lower-case letters and digits joined by single underscores, at most " ~ dbt_deid.settings_schema().max_release_name ~ " characters (it prefixes the release's model names)") }}
  {%- endif -%}
  {%- if raw is not mapping -%}
    {{ exceptions.raise_compiler_error("dbt_deid setting '" ~ where ~ "': must be a mapping of release settings") }}
  {%- endif -%}
  {%- if raw.get('name') != key -%}
    {{ exceptions.raise_compiler_error("dbt_deid setting '" ~ where ~ ".name': must equal the key " ~ key ~ ", got " ~ dbt_deid.literal(raw.get('name') | string)) }}
  {%- endif -%}
  {%- set default = var('deid_release', none) -%}
  {%- if default is mapping and default.get('name', 'release') == key -%}
    {{ exceptions.raise_compiler_error("dbt_deid setting '" ~ where ~ "': the default release (var deid_release) has the same name " ~ key ~ "; give each release its own name (reports and history rows are by name)") }}
  {%- endif -%}
{%- endmacro %}
