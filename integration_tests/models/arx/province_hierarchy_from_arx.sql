{#- The ARX-layout (headerless, `;`-separated) province hierarchy seed as a lookup hierarchy
    (docs/configuration.md, "Hierarchy files from ARX"). -#}
{{ dbt_deid.arx_hierarchy('province_hierarchy_arx') }}
