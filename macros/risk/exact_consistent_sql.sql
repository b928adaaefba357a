{#- The exact prosecutor check of a combination: for every distinct true tuple (columns
    `<qi>__generalized`), the number of released records consistent with it, a suppressed
    (NULL) cell being consistent with anything and a NULL true value equal to no released value.
    Computed per suppression mask: released records with mask m match a true tuple when they
    agree on the unsuppressed columns (`count_column`: the relation is a pattern table with
    that count column). Output: one row per true tuple with `n_true` (records with that tuple)
    and `consistent`; no QI values (true tuples are numbered).

    `prune_k`: only the true tuples whose consistent count is below prune_k are returned, each
    with its exact counts, so "no row" is the same verdict as the full computation. A record
    whose released row is consistent with its own true values is consistent with every record
    of its released class; when that class has >= prune_k records, its true tuple cannot fall
    below. So only the records that are not in that case are read again (released rows that
    contradict their true values, classes below prune_k): their true tuples are counted, and
    those below prune_k kept. Needs `execute` (the masks are read first).

    `chain_limit`: up to that many suppression masks, one left join per mask in a single pass
    over the true tuples; beyond it, the union of every mask's matches summed per tuple (same
    counts; the tests run both forms).

    `keep_tuples`: each row also carries its true tuple (`t0` ... one column per QI of the
    combination, in its order), for joining the counts back to the rows of a pattern table in
    the working schema (exact_consistent_columns_sql); never in a gate's or a report's output.

    `target_column` (without prune_k): a 0/1 column; only the rows with 1 are targets (their
    true tuples are counted, `n_true` their records), every row is a released record that
    targets are compared with. The combined view by person (combined_persons_sql) passes its
    records whose true values changed between versions as released records only: they are
    targets of the linked check (review 19, F1). -#}
{% macro exact_consistent_sql(relation, combination, count_column=none, prune_k=none, chain_limit=64, masks=none, keep_tuples=false, target_column=none) -%}
  {{ return(dbt_deid.own(adapter.dispatch('exact_consistent_sql', 'dbt_deid'))(relation, combination, count_column, prune_k, chain_limit, masks, keep_tuples, target_column)) }}
{%- endmacro %}

{% macro default__exact_consistent_sql(relation, combination, count_column=none, prune_k=none, chain_limit=64, masks=none, keep_tuples=false, target_column=none) -%}
  {%- if target_column is not none and prune_k is not none -%}
    {{ exceptions.raise_compiler_error('dbt_deid: exact_consistent_sql takes target_column without prune_k only') }}
  {%- endif -%}
  {%- set pub = [] -%}{%- set tru = [] -%}
  {%- for c in combination -%}
    {%- do pub.append(dbt_deid.ident(c)) -%}{%- do tru.append(dbt_deid.ident(c ~ '__generalized')) -%}
  {%- endfor -%}
  {%- set q = pub | length -%}
  {%- if masks is none -%}
    {%- set masks = dbt_deid.null_masks(relation, [combination])[0] -%}
  {%- endif -%}
  {#- each mask's filter on the released tuples: p<i> is null where the mask has 1 -#}
  {%- set filters = [] -%}
  {%- for m in masks -%}
    {%- set parts = [] -%}
    {%- for i in range(m | length) -%}{%- do parts.append('p' ~ i ~ ' is ' ~ ('null' if m[i] == 1 else 'not null')) -%}{%- endfor -%}
    {%- do filters.append(parts | join(' and ')) -%}
  {%- endfor -%}
  {%- set w = dbt_deid.ident(count_column) if count_column else '1' -%}
  {%- set ps = [] -%}{%- set ts = [] -%}
  {%- for i in range(q) -%}{%- do ps.append('p' ~ i) -%}{%- do ts.append('t' ~ i) -%}{%- endfor -%}
  {#- a record's released row is consistent with its own true values: per cell suppressed, or
      equal to a true value that is not NULL. Never NULL (coalesce), so NOT is its complement;
      twice as fast as the CASE form on 24 million records (issue 18, scratch timing). -#}
  {%- set own = [] -%}
  {%- for i in range(q) -%}{%- do own.append('coalesce(r.' ~ pub[i] ~ ' = r.' ~ tru[i] ~ ', r.' ~ pub[i] ~ ' is null)') -%}{%- endfor -%}
  {%- set own_consistent = '(' ~ own | join(' and ') ~ ')' -%}
  with {% if prune_k is not none -%}
  {#- Pruned (prune_k): only the true tuples whose consistent count is below prune_k are
      returned, each with its exact counts. A record whose released row is consistent with its
      own true values, in a released class of >= prune_k records, is consistent with every
      record of that class: its true tuple's count is >= prune_k. So a tuple below prune_k has
      only records that are not: records whose released row contradicts their own true values
      (a scan) or that sit in a class below prune_k (a join with those classes, usually none).
      Only their true tuples are counted, from those records alone (complete for the tuples
      below prune_k, the only ones kept). The earlier form grouped every (released, true) pair
      and joined each to its class: 8 million pairs per combination at 24 million records
      (issue 18). -#}
  classes as (
    select {% for i in range(q) %}{{ pub[i] }} as p{{ i }}, {% endfor %}sum({{ w }}) as f
    from {{ relation }}
    group by {{ pub | join(', ') }}
  ),
  small as (
    select {{ ps | join(', ') }} from classes where f < {{ prune_k }}
  ),
  flagged as (
    select {% for i in range(q) %}r.{{ tru[i] }} as t{{ i }}, {% endfor %}{{ 'r.' ~ w if count_column else '1' }} as n
    from {{ relation }} as r
    where not {{ own_consistent }}
    union all
    select {% for i in range(q) %}r.{{ tru[i] }} as t{{ i }}, {% endfor %}{{ 'r.' ~ w if count_column else '1' }} as n
    from {{ relation }} as r
    inner join small as s
      on {{ dbt_deid.null_safe_equal_sql('s', 'r', ps, pub) }}
    where {{ own_consistent }}
  ),
  {%- else -%}
  base as (
    select {% for i in range(q) %}{{ pub[i] }} as p{{ i }}, {{ tru[i] }} as t{{ i }}, {% endfor %}sum({{ w }}) as n
      {%- if target_column is not none %}, sum(case when {{ dbt_deid.ident(target_column) }} = 1 then {{ w }} else 0 end) as n_t{% endif %}
    from {{ relation }}
    group by {% for i in range(q) %}{{ pub[i] }}, {{ tru[i] }}{% if not loop.last %}, {% endif %}{% endfor %}
  ),
  {%- endif %}
  {#- the true tuples to count (pruned: those of the records that do not clear them) and the
      released tuples with their record counts -#}
  truth as (
    select row_number() over (order by {{ ts | join(', ') }}) as tid, x.*
    from (
      select {{ ts | join(', ') }}, sum({{ 'n_t' if target_column is not none else 'n' }}) as n_true
      from {{ 'flagged' if prune_k is not none else 'base' }}
      group by {{ ts | join(', ') }}
      {%- if target_column is not none %}
      having sum(n_t) > 0
      {%- endif %}
    ) as x
  ),
  released as (
    {%- if prune_k is not none %}
    select {{ ps | join(', ') }}, f as n from classes
    {%- else %}
    select {{ ps | join(', ') }}, sum(n) as n from base group by {{ ps | join(', ') }}
    {%- endif %}
  )
  {%- if masks | length <= chain_limit %}
  {#- One pass over the true tuples, one left join per mask: each mask's released group is
      keyed by its kept columns, so it matches a true tuple at most once (no record count is
      multiplied) and the counts add up in the row, with no aggregate over the matches: at 24
      million records 41 masks x 2.8 million true tuples gave that aggregate ~100 million rows
      (issue 18: 13-14 s -> ~10 s per combination). A mask with nothing kept is consistent with
      every tuple: its total is a scalar. -#}
  {%- set terms = [] %}
  , counted as (
  select t.tid, t.n_true,{% if keep_tuples %}{% for i in range(q) %} t.t{{ i }},{% endfor %}{% endif %}
    {%- for m in masks %}
    {%- set kept = [] -%}{%- for i in range(m | length) -%}{%- if m[i] == 0 -%}{%- do kept.append(i) -%}{%- endif -%}{%- endfor %}
    {%- if kept | length == 0 %}
    {%- do terms.append('(select coalesce(sum(n), 0) from released where ' ~ filters[loop.index0] ~ ')') %}
    {%- else %}
    {%- do terms.append('coalesce(g' ~ loop.index ~ '.n, 0)') %}
    {%- endif %}
    {%- endfor %}
    {{ (terms | join(' + ')) if terms else '0' }} as consistent
  from truth as t
  {%- for m in masks %}
  {%- set g = 'g' ~ loop.index %}
  {%- set kept = [] -%}{%- for i in range(m | length) -%}{%- if m[i] == 0 -%}{%- do kept.append(i) -%}{%- endif -%}{%- endfor %}
  {%- if kept | length > 0 %}
  left join (
    select {% for i in kept %}p{{ i }}, {% endfor %}sum(n) as n from released
    where {{ filters[loop.index0] }}
    group by {% for i in kept %}p{{ i }}{% if not loop.last %}, {% endif %}{% endfor %}
  ) as {{ g }} on {% for i in kept %}{{ g }}.p{{ i }} = t.t{{ i }}{% if not loop.last %} and {% endif %}{% endfor %}
  {%- endif %}
  {%- endfor %}
  )
  {%- else %}
  {#- Many masks (a join chain that long is slow to plan): every mask's matches in one union,
      summed per true tuple. -#}
  , matches as (
    select tid, 0 as n from truth where 1 = 0
    {%- for m in masks %}
    {%- set kept = [] -%}{%- for i in range(m | length) -%}{%- if m[i] == 0 -%}{%- do kept.append(i) -%}{%- endif -%}{%- endfor %}
    union all
    select t.tid, g.n
    from truth as t
    {%- if kept | length == 0 %}
    cross join (select sum(n) as n from released where {{ filters[loop.index0] }}) as g
    {%- else %}
    inner join (
      select {% for i in kept %}p{{ i }}, {% endfor %}sum(n) as n from released
      where {{ filters[loop.index0] }}
      group by {% for i in kept %}p{{ i }}{% if not loop.last %}, {% endif %}{% endfor %}
    ) as g on {% for i in kept %}g.p{{ i }} = t.t{{ i }}{% if not loop.last %} and {% endif %}{% endfor %}
    {%- endif %}
    {%- endfor %}
  ),
  counted as (
    select t.tid, t.n_true,{% if keep_tuples %}{% for i in range(q) %} t.t{{ i }},{% endfor %}{% endif %} coalesce(m.consistent, 0) as consistent
    from truth as t
    left join (select tid, sum(n) as consistent from matches group by tid) as m on m.tid = t.tid
  )
  {%- endif %}
  select tid, n_true, consistent{% if keep_tuples %}{% for i in range(q) %}, t{{ i }}{% endfor %}{% endif %} from counted
  {%- if prune_k is not none %}
  where consistent < {{ prune_k }}
  {%- endif %}
{%- endmacro %}
