{#- Equivalence classes and prosecutor risk (El Emam et al. 2011 "Equivalence Classes"; El Emam et al. 2009 (CJHP): risk of a
    record is 1/f_j, the release's maximum risk 1/min f_j). NULL (suppressed) is its own
    category in GROUP BY / PARTITION BY, so the fully suppressed class is a class too. -#}

{#- Per-record risk: for each record, its smallest class size over `combinations` and the
    prosecutor risk 1/f_j of that class. -#}
{% macro record_risk_sql(relation, record_id, combinations) -%}
  {{ return(dbt_deid.own(adapter.dispatch('record_risk_sql', 'dbt_deid'))(relation, record_id, combinations)) }}
{%- endmacro %}

{% macro default__record_risk_sql(relation, record_id, combinations) -%}
  {%- set sizes = [] -%}
  {%- for b in combinations -%}
    {%- set cols = [] -%}{%- for c in b -%}{%- do cols.append(dbt_deid.ident(c)) -%}{%- endfor -%}
    {%- do sizes.append('count(*) over (partition by ' ~ cols | join(', ') ~ ')') -%}
  {%- endfor -%}
  select {{ dbt_deid.ident(record_id) }},
    {% if sizes | length > 1 %}least({{ sizes | join(', ') }}){% else %}{{ sizes[0] }}{% endif %} as smallest_class_size,
    1.0 / {% if sizes | length > 1 %}least({{ sizes | join(', ') }}){% else %}{{ sizes[0] }}{% endif %} as prosecutor_risk
  from {{ relation }}
{%- endmacro %}

{#- Distinct tuples of every combination's columns with their record count `n` and their
    smallest class size over the combinations (`smallest_class_size`, window sums over the
    tuples, not over records; one window per combination: risk_cdf_sql passes each distinct
    set of columns once). Shared by the risk CDF and DuckDB's record risk. `count_column`:
    the relation is a pattern table, each row standing for that many records. -#}
{% macro smallest_class_patterns_sql(relation, combinations, count_column=none) -%}
  {{ return(dbt_deid.own(adapter.dispatch('smallest_class_patterns_sql', 'dbt_deid'))(relation, combinations, count_column)) }}
{%- endmacro %}

{% macro default__smallest_class_patterns_sql(relation, combinations, count_column=none) -%}
  {%- set all_cols = [] -%}
  {%- for b in combinations -%}{%- for c in b -%}{%- if dbt_deid.ident(c) not in all_cols -%}{%- do all_cols.append(dbt_deid.ident(c)) -%}{%- endif -%}{%- endfor -%}{%- endfor -%}
  {%- set sizes = [] -%}
  {%- for b in combinations -%}
    {%- set cols = [] -%}{%- for c in b -%}{%- do cols.append(dbt_deid.ident(c)) -%}{%- endfor -%}
    {%- do sizes.append('sum(n) over (partition by ' ~ cols | join(', ') ~ ')') -%}
  {%- endfor -%}
  select {{ all_cols | join(', ') }}, n,
    cast({% if sizes | length > 1 %}least({{ sizes | join(', ') }}){% else %}{{ sizes[0] }}{% endif %} as {{ dbt.type_bigint() }}) as smallest_class_size
  from (
    select {{ all_cols | join(', ') }}, {% if count_column %}sum({{ dbt_deid.ident(count_column) }}){% else %}count(*){% endif %} as n from {{ relation }} group by {{ all_cols | join(', ') }}
  ) as patterns
{%- endmacro %}

{#- DuckDB: the same figures from smallest_class_patterns_sql joined back to the records with
    null-safe equality (DuckDB hash-joins IS NOT DISTINCT FROM; engines that cannot keep the
    window form above). -#}
{% macro duckdb__record_risk_sql(relation, record_id, combinations) -%}
  {%- set all_cols = [] -%}
  {%- for b in combinations -%}{%- for c in b -%}{%- if dbt_deid.ident(c) not in all_cols -%}{%- do all_cols.append(dbt_deid.ident(c)) -%}{%- endif -%}{%- endfor -%}{%- endfor -%}
  select r.{{ dbt_deid.ident(record_id) }}, s.smallest_class_size, 1.0 / s.smallest_class_size as prosecutor_risk
  from {{ relation }} as r
  inner join ({{ dbt_deid.smallest_class_patterns_sql(relation, combinations) }}) as s
    on {% for c in all_cols %}r.{{ c }} is not distinct from s.{{ c }}{% if not loop.last %} and {% endif %}{% endfor %}
{%- endmacro %}

{#- Class sizes f_j of one combination: one row per class (size column `f`), no values.
    `count_column`: the relation is a pattern table, each row standing for that many records. -#}
{% macro class_sizes_sql(relation, combination, count_column=none) -%}
  {{ return(dbt_deid.own(adapter.dispatch('class_sizes_sql', 'dbt_deid'))(relation, combination, count_column)) }}
{%- endmacro %}

{% macro default__class_sizes_sql(relation, combination, count_column=none) -%}
  {%- set cols = [] -%}{%- for c in combination -%}{%- do cols.append(dbt_deid.ident(c)) -%}{%- endfor -%}
  select {% if count_column %}sum({{ dbt_deid.ident(count_column) }}){% else %}count(*){% endif %} as f from {{ relation }} group by {{ cols | join(', ') }}
{%- endmacro %}

{#- Risk summary per combination: classes, smallest class, max risk 1/min f_j, mean risk
    (mean over records of 1/f_j = classes / records), records and share of records above tau
    (1/f_j > tau, i.e. f_j < k = ceil(1/tau)), and the discernibility metric sum f_j^2 (classes
    formed with a suppressed value as its own category). `count_column`: the relation is a
    pattern table (deid_patterns, deid_suppressed_patterns), the same figures from fewer rows. -#}
{% macro risk_summary_sql(relation, combinations, k, tau, stage, count_column=none) -%}
  {{ return(dbt_deid.own(adapter.dispatch('risk_summary_sql', 'dbt_deid'))(relation, combinations, k, tau, stage, count_column)) }}
{%- endmacro %}

{% macro default__risk_summary_sql(relation, combinations, k, tau, stage, count_column=none) -%}
  {%- for b in combinations %}
  select
    {{ dbt_deid.literal(stage) }} as stage,
    {{ dbt_deid.literal(b | join('+')) }} as combination,
    {{ k }} as k,
    {{ tau }} as tau,
    cast(sum(f) as {{ dbt.type_bigint() }}) as records,
    count(*) as classes,
    min(f) as smallest_class,
    1.0 / min(f) as max_risk,
    1.0 * count(*) / sum(f) as mean_risk,
    cast(sum(case when f < {{ k }} then 1 else 0 end) as {{ dbt.type_bigint() }}) as classes_below_k,
    cast(sum(case when f < {{ k }} then f else 0 end) as {{ dbt.type_bigint() }}) as records_above_tau,
    1.0 * sum(case when f < {{ k }} then f else 0 end) / sum(f) as share_above_tau,
    sum(1.0 * f * f) as discernibility
  from ({{ dbt_deid.class_sizes_sql(relation, b, count_column) }}) as classes
  {%- if not loop.last %}
  union all
  {%- endif %}
  {%- endfor %}
{%- endmacro %}

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
    counts; the tests run both forms). -#}
{% macro exact_consistent_sql(relation, combination, count_column=none, prune_k=none, chain_limit=64, masks=none) -%}
  {{ return(dbt_deid.own(adapter.dispatch('exact_consistent_sql', 'dbt_deid'))(relation, combination, count_column, prune_k, chain_limit, masks)) }}
{%- endmacro %}

{% macro default__exact_consistent_sql(relation, combination, count_column=none, prune_k=none, chain_limit=64, masks=none) -%}
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
    from {{ relation }}
    group by {% for i in range(q) %}{{ pub[i] }}, {{ tru[i] }}{% if not loop.last %}, {% endif %}{% endfor %}
  ),
  {%- endif %}
  {#- the true tuples to count (pruned: those of the records that do not clear them) and the
      released tuples with their record counts -#}
  truth as (
    select row_number() over (order by {{ ts | join(', ') }}) as tid, x.*
    from (
      select {{ ts | join(', ') }}, sum(n) as n_true
      from {{ 'flagged' if prune_k is not none else 'base' }}
      group by {{ ts | join(', ') }}
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
  select t.tid, t.n_true,
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
    select t.tid, t.n_true, coalesce(m.consistent, 0) as consistent
    from truth as t
    left join (select tid, sum(n) as consistent from matches group by tid) as m on m.tid = t.tid
  )
  {%- endif %}
  select tid, n_true, consistent from counted
  {%- if prune_k is not none %}
  where consistent < {{ prune_k }}
  {%- endif %}
{%- endmacro %}

{#- The suppression masks of each combination: for every combination (a list of released
    columns), the distinct patterns of NULL cells among its columns in `relation`, as lists of
    0/1 flags in the combination's order. One query over the union of the combinations'
    columns, projected per combination (one scan instead of one per combination: about 0.6-1 s
    each at 24 million records, issue 18). [[]...] while parsing, or on a fresh warehouse under
    compile (dbt_deid.can_inspect). -#}
{% macro null_masks(relation, combinations) -%}
  {%- set cols = [] -%}
  {%- for b in combinations -%}{%- for c in b -%}{%- if c not in cols -%}{%- do cols.append(c) -%}{%- endif -%}{%- endfor -%}{%- endfor -%}
  {%- set out = [] -%}
  {%- for b in combinations -%}{%- do out.append([]) -%}{%- endfor -%}
  {%- if cols | length > 0 and dbt_deid.can_inspect(relation) -%}
    {%- set flags = [] -%}
    {%- for c in cols -%}{%- do flags.append('case when ' ~ dbt_deid.ident(c) ~ ' is null then 1 else 0 end') -%}{%- endfor -%}
    {%- set rows = run_query('select distinct ' ~ flags | join(', ') ~ ' from ' ~ relation).rows -%}
    {%- for b in combinations -%}
      {%- set seen = [] -%}
      {%- for r in rows -%}
        {%- set m = [] -%}
        {%- for c in b -%}{%- do m.append(r[cols.index(c)] | int) -%}{%- endfor -%}
        {%- if m not in seen -%}{%- do seen.append(m) -%}{%- endif -%}
      {%- endfor -%}
      {%- do out[loop.index0].extend(seen) -%}
    {%- endfor -%}
  {%- endif -%}
  {{ return(out) }}
{%- endmacro %}

{#- Null-safe equality of two aliases' columns, pairwise (a NULL matches only NULL): plain
    equalities, so every engine hashes the join (values compared as text). -#}
{% macro null_safe_equal_sql(left, right, left_columns, right_columns) -%}
  {%- for i in range(left_columns | length) -%}
    {%- set l = left ~ '.' ~ left_columns[i] -%}{%- set r = right ~ '.' ~ right_columns[i] -%}
    coalesce(cast({{ l }} as {{ dbt.type_string() }}), '') = coalesce(cast({{ r }} as {{ dbt.type_string() }}), '') and ({{ l }} is null) = ({{ r }} is null)
    {%- if not loop.last %}
      and {% endif -%}
  {%- endfor -%}
{%- endmacro %}

{#- Exact summary per combination: smallest consistent set and records whose consistent set is
    below k (`count_column`: the relation is a pattern table; `prune_k`: see
    exact_consistent_sql; the smallest set and the tuples counted are then over the tuples
    below prune_k only, NULL and 0 when none is). -#}
{% macro exact_risk_summary_sql(relation, combinations, k, count_column=none, prune_k=none) -%}
  {{ return(dbt_deid.own(adapter.dispatch('exact_risk_summary_sql', 'dbt_deid'))(relation, combinations, k, count_column, prune_k)) }}
{%- endmacro %}

{% macro default__exact_risk_summary_sql(relation, combinations, k, count_column=none, prune_k=none) -%}
  {%- set masks = dbt_deid.null_masks(relation, combinations) -%}
  {%- for b in combinations %}
  select {{ dbt_deid.literal(b | join('+')) }} as combination,
    {{ k }} as k,
    min(consistent) as min_consistent,
    cast(coalesce(sum(case when consistent < {{ k }} then n_true else 0 end), 0) as {{ dbt.type_bigint() }}) as records_below_k,
    count(*) as tuples_evaluated
  from ({{ dbt_deid.exact_consistent_sql(relation, b, count_column, prune_k, masks=masks[loop.index0]) }}) as x
  {%- if not loop.last %}
  union all
  {%- endif %}
  {%- endfor %}
{%- endmacro %}

{#- The exact prosecutor check's full distribution (El Emam et al. 2011, discharge PUMF,
    "Equivalence Classes"; the definitive count of the guarantee): per combination and per size
    of the consistent set, the records whose true values are consistent with that many released
    records (exact_consistent_sql, unpruned). Counts only, no QI value. The risk summary's exact
    columns and the report's exact risk figures both read it (model deid_exact_consistent), so
    the count is computed once per build for the diagnostics. -#}
{% macro exact_consistent_distribution_sql(relation, combinations, count_column=none) -%}
  {{ return(dbt_deid.own(adapter.dispatch('exact_consistent_distribution_sql', 'dbt_deid'))(relation, combinations, count_column)) }}
{%- endmacro %}

{% macro default__exact_consistent_distribution_sql(relation, combinations, count_column=none) -%}
  {%- set masks = dbt_deid.null_masks(relation, combinations) -%}
  {%- for b in combinations %}
  select {{ dbt_deid.literal(b | join('+')) }} as combination,
    consistent,
    cast(sum(n_true) as {{ dbt.type_bigint() }}) as records
  from ({{ dbt_deid.exact_consistent_sql(relation, b, count_column, masks=masks[loop.index0]) }}) as x
  group by consistent
  {%- if not loop.last %}
  union all
  {%- endif %}
  {%- endfor %}
{%- endmacro %}

{#- Information loss per QI and for the whole release (El Emam et al. 2011 "Measuring Information Loss"):
    suppressed cells and their share, records with any suppressed QI and their share, and
    non-uniform entropy: for each record and QI, -log2 of the share of records with its original
    value (read from the `__original` column of its source column, original_value_sources)
    among the records that share its released value (a suppressed cell's released value
    covers all records). With the hierarchy relation, precision Prec (Sweeney; El Emam et al. 2009 (CJHP)):
    1 - mean over cells of level/height, a suppressed cell counting as the full height. -#}
{% macro information_loss_sql(cfg, suppressed, hierarchy=none) -%}
  {{ return(dbt_deid.own(adapter.dispatch('information_loss_sql', 'dbt_deid'))(cfg, suppressed, hierarchy)) }}
{%- endmacro %}

{#- Not dbt_utils.unpivot: each row is a set of aggregates computed per column (suppressed cells, entropy, precision), not a stored column turned into rows. -#}
{% macro default__information_loss_sql(cfg, suppressed, hierarchy) -%}
  {%- set qis = cfg.released_qis -%}
  {%- if qis | length == 0 -%}{{ return('select 1 as placeholder') }}{%- endif -%}
  {%- set sources = dbt_deid.original_value_sources(cfg) -%}
  {%- set any_null = [] -%}
  {%- for q in qis -%}{%- do any_null.append(dbt_deid.ident(q) ~ ' is null') -%}{%- endfor -%}
  with totals as (select count(*) as n from {{ suppressed }})
  {%- for q in qis %}
  {%- set r = dbt_deid.ident(q) %}{%- set o = dbt_deid.ident(sources[q] ~ '__original') %}
  , e{{ loop.index }} as (
    select coalesce(sum(o_r.n_or * -ln(1.0 * o_r.n_or / rr.n_r)) / ln(2.0), 0) as entropy
    from (select {{ o }} as o, {{ r }} as r, count(*) as n_or from {{ suppressed }} where {{ r }} is not null group by {{ o }}, {{ r }}) as o_r
    inner join (select {{ r }} as r, count(*) as n_r from {{ suppressed }} where {{ r }} is not null group by {{ r }}) as rr on rr.r = o_r.r
  )
  , s{{ loop.index }} as (
    select coalesce(sum(sup.n_sup * -ln(1.0 * allo.n_o / t.n)) / ln(2.0), 0) as entropy
    from (select {{ o }} as o, count(*) as n_sup from {{ suppressed }} where {{ r }} is null group by {{ o }}) as sup
    inner join (select {{ o }} as o, count(*) as n_o from {{ suppressed }} group by {{ o }}) as allo on allo.o = sup.o
    cross join totals as t
  )
  {%- endfor %}
  {%- for q in qis %}
  select {{ dbt_deid.literal(q) }} as column_name,
    {{ loop.index }} as column_order,
    t.n as records,
    (select count(*) from {{ suppressed }} where {{ dbt_deid.ident(q) }} is null) as suppressed_cells,
    1.0 * (select count(*) from {{ suppressed }} where {{ dbt_deid.ident(q) }} is null) / t.n as share_cells_suppressed,
    (select count(*) from {{ suppressed }} where {{ dbt_deid.ident(q) }} is null) as records_with_suppression,
    1.0 * (select count(*) from {{ suppressed }} where {{ dbt_deid.ident(q) }} is null) / t.n as share_records_with_suppression,
    (select entropy from e{{ loop.index }}) + (select entropy from s{{ loop.index }}) as non_uniform_entropy,
    {{ dbt_deid._precision_sql(cfg, q, suppressed, hierarchy) }} as precision
  from totals as t
  union all
  {%- endfor %}
  select '(all quasi-identifiers)' as column_name,
    0 as column_order,
    t.n as records,
    ({% for q in qis %}(select count(*) from {{ suppressed }} where {{ dbt_deid.ident(q) }} is null){% if not loop.last %} + {% endif %}{% endfor %}) as suppressed_cells,
    1.0 * ({% for q in qis %}(select count(*) from {{ suppressed }} where {{ dbt_deid.ident(q) }} is null){% if not loop.last %} + {% endif %}{% endfor %}) / (t.n * {{ qis | length }}) as share_cells_suppressed,
    (select count(*) from {{ suppressed }} where {{ any_null | join(' or ') }}) as records_with_suppression,
    1.0 * (select count(*) from {{ suppressed }} where {{ any_null | join(' or ') }}) / t.n as share_records_with_suppression,
    ({% for q in qis %}(select entropy from e{{ loop.index }}) + (select entropy from s{{ loop.index }}){% if not loop.last %} + {% endif %}{% endfor %}) as non_uniform_entropy,
    ({% for q in qis %}{{ dbt_deid._precision_sql(cfg, q, suppressed, hierarchy) }}{% if not loop.last %} + {% endif %}{% endfor %}) / {{ qis | length }} as precision
  from totals as t
{%- endmacro %}

{#- The same figures in one pass per QI, for engines where the portable form is slow (issue 37):
    default__information_loss_sql scans deid_suppressed about five times per QI (a scalar
    subquery per figure, two joined GROUP BYs per entropy term); PostgreSQL without statistics
    on the fresh table planned it 81x DuckDB's time at 2.4 million records, and Spark runs every
    scalar subquery as a job of its own. Here one scan counts every QI's unsuppressed cells and
    the records with any suppressed QI, and each QI's entropy (El Emam et al. 2011, "Measuring
    Information Loss") comes from one GROUP BY of (original, released) whose window sums give
    the released value's records (unsuppressed cells) and the original value's records
    (suppressed cells, whose released value covers all records). The arithmetic is the default
    form's, term for term. -#}
{% macro postgres__information_loss_sql(cfg, suppressed, hierarchy) -%}
  {%- if execute and flags.WHICH in ['run', 'build'] -%}
    {%- do run_query("analyze " ~ suppressed) -%}
  {%- endif -%}
  {{ return(dbt_deid.information_loss_grouped_sql(cfg, suppressed, hierarchy)) }}
{%- endmacro %}

{% macro spark__information_loss_sql(cfg, suppressed, hierarchy) -%}
  {{ return(dbt_deid.information_loss_grouped_sql(cfg, suppressed, hierarchy)) }}
{%- endmacro %}

{% macro information_loss_grouped_sql(cfg, suppressed, hierarchy) -%}
  {%- set qis = cfg.released_qis -%}
  {%- if qis | length == 0 -%}{{ return('select 1 as placeholder') }}{%- endif -%}
  {%- set sources = dbt_deid.original_value_sources(cfg) -%}
  {%- set d = dbt_deid.type_double() -%}
  {%- set any_null = [] -%}
  {%- for q in qis -%}{%- do any_null.append(dbt_deid.ident(q) ~ ' is null') -%}{%- endfor -%}
  {%- set sup = [] -%}{%- set ent = [] -%}{%- set prec = [] -%}
  {%- for q in qis -%}
    {%- do sup.append('(t.n - t.c' ~ loop.index ~ ')') -%}
    {%- do ent.append('e' ~ loop.index ~ '.entropy_r + e' ~ loop.index ~ '.entropy_s') -%}
    {%- if hierarchy is none -%}
      {%- do prec.append('cast(null as ' ~ dbt.type_float() ~ ')') -%}
    {%- else -%}
      {%- set spec = (cfg.qis | selectattr('name', 'equalto', q) | list)[0] -%}
      {%- do prec.append('(cast(1 as ' ~ d ~ ') - (cast(t.n - t.c' ~ loop.index ~ ' as ' ~ d ~ ') + cast(t.c' ~ loop.index ~ ' as ' ~ d ~ ') * ' ~ spec.level ~ ' / nullif(hh.h' ~ loop.index ~ ', 0)) / t.n)') -%}
    {%- endif -%}
  {%- endfor -%}
  with totals as (
    select count(*) as n
    {%- for q in qis %}, count({{ dbt_deid.ident(q) }}) as c{{ loop.index }}{% endfor %},
      count(case when {{ any_null | join(' or ') }} then 1 end) as any_suppressed
    from {{ suppressed }}
  )
  {%- if hierarchy is not none %}
  , heights as (
    select {% for q in qis %}max(case when qi_name = {{ dbt_deid.literal(q) }} then level end) as h{{ loop.index }}{% if not loop.last %}, {% endif %}{% endfor %}
    from {{ hierarchy }}
  )
  {%- endif %}
  {%- for q in qis %}
  {%- set r = dbt_deid.ident(q) %}{%- set o = dbt_deid.ident(sources[q] ~ '__original') %}
  , g{{ loop.index }} as (
    select o, r, n_or,
      cast(sum(case when r is not null then n_or end) over (partition by r) as {{ dbt.type_bigint() }}) as n_r,
      cast(sum(n_or) over (partition by o) as {{ dbt.type_bigint() }}) as n_o
    from (select {{ o }} as o, {{ r }} as r, count(*) as n_or from {{ suppressed }} group by {{ o }}, {{ r }}) as o_r
  )
  , e{{ loop.index }} as (
    select coalesce(sum(case when g.r is not null then g.n_or * -ln(1.0 * g.n_or / g.n_r) end) / ln(2.0), 0) as entropy_r,
      coalesce(sum(case when g.r is null then g.n_or * -ln(1.0 * g.n_o / t.n) end) / ln(2.0), 0) as entropy_s
    from g{{ loop.index }} as g cross join totals as t
  )
  {%- endfor %}
  {%- for q in qis %}
  select {{ dbt_deid.literal(q) }} as column_name,
    {{ loop.index }} as column_order,
    t.n as records,
    t.n - t.c{{ loop.index }} as suppressed_cells,
    1.0 * (t.n - t.c{{ loop.index }}) / t.n as share_cells_suppressed,
    t.n - t.c{{ loop.index }} as records_with_suppression,
    1.0 * (t.n - t.c{{ loop.index }}) / t.n as share_records_with_suppression,
    {{ ent[loop.index0] }} as non_uniform_entropy,
    {{ prec[loop.index0] }} as precision
  from totals as t{% for _ in qis %} cross join e{{ loop.index }}{% endfor %}{% if hierarchy is not none %} cross join heights as hh{% endif %}
  union all
  {%- endfor %}
  select '(all quasi-identifiers)' as column_name,
    0 as column_order,
    t.n as records,
    ({{ sup | join(' + ') }}) as suppressed_cells,
    1.0 * ({{ sup | join(' + ') }}) / (t.n * {{ qis | length }}) as share_cells_suppressed,
    t.any_suppressed as records_with_suppression,
    1.0 * t.any_suppressed / t.n as share_records_with_suppression,
    ({{ ent | join(' + ') }}) as non_uniform_entropy,
    ({{ prec | join(' + ') }}) / {{ qis | length }} as precision
  from totals as t{% for _ in qis %} cross join e{{ loop.index }}{% endfor %}{% if hierarchy is not none %} cross join heights as hh{% endif %}
{%- endmacro %}

{#- Prec of one released QI: 1 - ((unsuppressed cells x level / height) + suppressed cells) / n. -#}
{% macro _precision_sql(cfg, q, suppressed, hierarchy) -%}
  {%- if hierarchy is none -%}{{ return('cast(null as ' ~ dbt.type_float() ~ ')') }}{%- endif -%}
  {%- set spec = (cfg.qis | selectattr('name', 'equalto', q) | list)[0] -%}
  {%- set d = dbt_deid.type_double() -%}  {#- not 1.0: a decimal literal keeps 6 decimals on Spark -#}
  {%- set sql -%}
  (select cast(1 as {{ d }}) - (cast(count(*) - count({{ dbt_deid.ident(q) }}) as {{ d }}) + cast(count({{ dbt_deid.ident(q) }}) as {{ d }}) * {{ spec.level }} / nullif(max(hh.height), 0)) / count(*)
   from {{ suppressed }} cross join (select max(level) as height from {{ hierarchy }} where qi_name = {{ dbt_deid.literal(q) }}) as hh)
  {%- endset -%}
  {{ return(sql) }}
{%- endmacro %}
