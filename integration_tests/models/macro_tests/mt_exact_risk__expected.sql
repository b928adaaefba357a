{#- Released records consistent with each true tuple (a suppressed cell matches anything):
    (1, x): the two (1, x) = 2; (1, y): (1, y) and (NULL, y) = 2; (2, y): (NULL, y) and
    (2, NULL) = 2; (2, x): (2, NULL) and (2, x) = 2. k = 3: every record is below (6), 4 tuples.
    Pruned (prune_k = k), only the tuples below k are returned: with k = 2 none (every tuple
    has 2), so no smallest set and 0 tuples; with k = 3 all four, each with its exact count,
    as the full form. The union form (chain_limit 0) gives the same counts. -#}
{{ config(enabled=var('deid_macro_tests', false), tags=['macro_tests']) }}
select variant, combination, k, cast(min_consistent as hugeint) as min_consistent,
  cast(records_below_k as bigint) as records_below_k, cast(tuples_evaluated as bigint) as tuples_evaluated
from (values ('full', 'a+b', 3, 2, 6, 4), ('pruned', 'a+b', 2, null, 0, 0), ('pruned_k3', 'a+b', 3, 2, 6, 4),
             ('full_union', 'a+b', 3, 2, 6, 4), ('pruned_union', 'a+b', 2, null, 0, 0), ('pruned_k3_union', 'a+b', 3, 2, 6, 4))
  as t(variant, combination, k, min_consistent, records_below_k, tuples_evaluated)
