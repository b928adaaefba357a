-- The source with two odd columns for the small-error tests of issue 35: age_double, a DOUBLE
-- copy of age holding NaN, inf and 1e300 in three records, and ward, a text column holding the
-- missing label '<missing>' as a value next to NULLs. Built only when a test selects it.
with numbered as (
  select d.*, row_number() over (order by d.abstract_id) as odd_row
  from {{ ref('discharge_abstracts') }} as d
)
select
  numbered.*,
  case odd_row
    when 1 then cast('nan' as double)
    when 2 then cast('inf' as double)
    when 3 then cast(1e300 as double)
    else cast(age as double)
  end as age_double,
  case
    when odd_row % 50 = 0 then '<missing>'
    when odd_row % 7 = 0 then null
    else 'ward ' || cast(odd_row % 3 as varchar)
  end as ward
from numbered
