{#- Whether a graph node is one of the package's publish models (deid_published, an extra
    release's `<release>__deid_published`, the claims and text publish models), found without
    relying on `materialized == 'deid_publish'` alone: a project's `+materialized` override
    changes that config (the model then refuses while dbt renders it, review 8, F3), yet its
    failed attempt must still be recorded and its history found. Known by the materialization,
    the gate set the publish models declare (`deid_checks`) or the package's tag `deid_publish`
    (dbt_project.yml, models/publish/). -#}
{% macro is_publish_node(node) -%}
  {%- if (node.resource_type | string) != 'model' -%}{{ return(false) }}{%- endif -%}
  {{ return(node.config.get('materialized') == 'deid_publish'
            or node.config.get('deid_checks') in ['release', 'claims', 'text']
            or 'deid_publish' in (node.tags or [])) }}
{%- endmacro %}
