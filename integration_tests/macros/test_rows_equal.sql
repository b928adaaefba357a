{#- The multiset of `model`'s rows equals that of `expected` (dbt-utils' `equality`, written out:
    the package has no dbt-utils dependency and this is its only use). Same columns in the same
    order; NULLs compare equal (set operations). Each failing row says on which side it is. -#}
{% test rows_equal(model, expected) %}
select 'missing' as side__, m.* from (
  select * from {{ expected }}
  except all
  select * from {{ model }}
) as m
union all
select 'unexpected' as side__, u.* from (
  select * from {{ model }}
  except all
  select * from {{ expected }}
) as u
{% endtest %}
