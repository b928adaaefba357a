-- The source with a column added upstream after the release was written (it has no role).
select *, 'added later' as referral_source from {{ ref('discharge_abstracts') }}
