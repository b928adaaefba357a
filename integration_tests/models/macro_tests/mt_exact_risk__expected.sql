{#- Released records consistent with each true tuple (a suppressed cell matches anything):
    (1, x): the two (1, x) = 2; (1, y): (1, y) and (NULL, y) = 2; (2, y): (NULL, y) and
    (2, NULL) = 2; (2, x): (2, NULL) and (2, x) = 2. k = 3: every record is below (6), 4 tuples.
    prune_k = k = 2: only (1, x)'s records sit in a released class of >= 2 that is consistent
    with them, so the other 3 tuples are evaluated, each with 2 >= k: none below. The union
    form (chain_limit 0) gives the same counts. -#}
{{ config(enabled=var('deid_macro_tests', false), tags=['macro_tests']) }}
select variant, combination, k, cast(min_consistent as hugeint) as min_consistent,
  cast(records_below_k as bigint) as records_below_k, cast(tuples_evaluated as bigint) as tuples_evaluated
from (values ('full', 'a+b', 3, 2, 6, 4), ('pruned', 'a+b', 2, 2, 0, 3),
             ('full_union', 'a+b', 3, 2, 6, 4), ('pruned_union', 'a+b', 2, 2, 0, 3))
  as t(variant, combination, k, min_consistent, records_below_k, tuples_evaluated)
