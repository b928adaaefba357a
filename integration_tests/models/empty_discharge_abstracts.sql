-- An empty source, for the "empty input" bad-input case.
select * from {{ ref('discharge_abstracts') }} where 1 = 0
