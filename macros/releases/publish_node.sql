{#- Whether a graph node is one of the publish models (deid_published, an extra release's
    `<release>__deid_published`, the claims and text publish models), found without relying on
    `materialized == 'deid_publish'` alone: a project's `+materialized` override changes that
    config (the model then refuses while dbt renders it, review 8, F3), yet its failed attempt
    must still be recorded, its history found, and it is no working model. Known by the
    materialization, or by its name: one of the package's publish models (package dbt_deid),
    or an extra release's `<release>__<publish model>` (names a project cannot change; not by a
    tag or a config a project could put on a working model). -#}
{% macro is_publish_node(node) -%}
  {%- if (node.resource_type | string) != 'model' -%}{{ return(false) }}{%- endif -%}
  {%- if node.config.get('materialized') == 'deid_publish' -%}{{ return(true) }}{%- endif -%}
  {%- set split = dbt_deid._split_release_node(node.name) -%}
  {%- set base = split[1] if split is not none else node.name -%}
  {{ return(base in ['deid_published', 'deid_claims_published_claims', 'deid_claims_published_patients', 'deid_text_published']
            and (split is not none or node.package_name == 'dbt_deid')) }}
{%- endmacro %}
