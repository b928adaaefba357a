{#- A consumer's mart over the published discharge release: the columns the recipient receives,
    under an enforced contract (published_models.yml). The exposure discharge_geographic_extract
    declares what reads it, so `python -m dbt_deid lineage` checks that every column still
    derives only from released quasi-identifiers and pass-through columns. -#}
{{ config(materialized='table') }}
select province, age, gender, mrdx, diag_block, diag_chapter, cmg, cci_code, short_cci,
  discharge_disposition
from {{ ref('deid_published') }}
