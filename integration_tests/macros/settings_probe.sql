{#- For the test suite: prints, as JSON, the name the Jinja validator suggests for each
    misspelt setting (dbt_deid._closest_name), to compare with the Python twin. -#}
{% macro print_closest_names(names, section='release') %}
  {%- set known = dbt_deid.settings_schema().sections[section].keys() | list -%}
  {%- set out = {} -%}
  {%- for n in names -%}{%- do out.update({n: dbt_deid._closest_name(n, known)}) -%}{%- endfor -%}
  {{ print('CLOSEST=' ~ tojson(out)) }}
{% endmacro %}

{#- For the test suite: runs one of the package's settings validators on `settings` (a release
    given as an argument, so that one parse with the project's vars serves every case) and
    prints SETTINGS_ACCEPTED when it raises nothing. A bad setting raises the validator's own
    compiler error, the message the same release in the vars fails `dbt parse` with.
    validator: release (dbt_deid.release_config; its checks come before it reads the release
    plan, so a release it accepts then needs the deid_release_plan table), claims
    (claims_release_config), text (text_release_config), or release_names (release_config,
    then the name checks a build runs on the source's columns, dbt_deid.assert_source_columns,
    which need the source and deid_release_plan tables in the warehouse). -#}
{% macro check_settings(validator, settings) %}
  {%- if validator == 'release' -%}
    {%- do dbt_deid.release_config(settings) -%}
  {%- elif validator == 'claims' -%}
    {%- do dbt_deid.claims_release_config(settings) -%}
  {%- elif validator == 'text' -%}
    {%- do dbt_deid.text_release_config(settings) -%}
  {%- elif validator == 'release_names' -%}
    {%- do dbt_deid.assert_source_columns(dbt_deid.release_config(settings)) -%}
  {%- else -%}
    {{ exceptions.raise_compiler_error('check_settings: unknown validator ' ~ validator) }}
  {%- endif -%}
  {{ print('SETTINGS_ACCEPTED') }}
{% endmacro %}
