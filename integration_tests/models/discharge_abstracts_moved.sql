{#- The same records as discharge_abstracts, copied into a table of another schema (a table
    moved or copied, a renamed schema): tests/integration/test_combined_releases_dbt.py points a
    release of another name at it, whose records the gate must combine with the releases of
    discharge_abstracts (issue 32, item 2). Disabled unless var it_moved_source is true. -#}
{{ config(enabled=var('it_moved_source', false), materialized='table', schema='moved') }}
select * from {{ ref('discharge_abstracts') }}
