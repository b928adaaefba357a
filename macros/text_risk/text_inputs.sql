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
  {%- do ref('dbt_deid', 'deid_text_plan') -%}
  {{ return(dbt_deid.own(adapter.dispatch('text_input_relation', 'dbt_deid'))(cfg, table)) }}
{%- endmacro %}

{% macro default__text_input_relation(cfg, table) -%}
  {{ return(dbt_deid.setting_relation(cfg[table])) }}
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
