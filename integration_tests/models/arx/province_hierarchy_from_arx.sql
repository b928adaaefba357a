{#- The ARX-layout (headerless, `;`-separated) province hierarchy seed as a lookup hierarchy
    (README, "Hierarchy files from ARX"). -#}
{{ dbt_deid.arx_hierarchy('province_hierarchy_arx') }}
