{#- Spark form of the exact consistent-set check (the exact_k_anonymity gate, the combined
    releases gate and the exact part of deid_diagnostics' risk summary all call exact_risk_summary_sql;
    default__exact_risk_summary_sql in macros/risk/exact_risk_summary_sql.sql is the reference).

    Same definition (El Emam et al. 2011, "Measuring the Probability of Re-identification":
    a true tuple's records are consistent with every released record that agrees with it on the
    released, unsuppressed cells; a suppressed cell is consistent with anything, a NULL true
    value equals no released value), same pruning result (prune_k: only the true tuples whose
    consistent count is below prune_k; the tuples none of whose records sits in a released
    class of >= prune_k records consistent with its own truth are counted, the others cannot
    fall below) and the same output: one row per combination with min_consistent, records_below_k and
    tuples_evaluated.

    Why a second form: the default joins every true tuple once per suppression mask, a UNION of
    up to 2^q grouped joins per combination. Spark plans each branch as its own shuffles, and a
    Spark stage costs ~1 s however small (a local JVM on 2 cores): at 20,000 records the gate
    did not finish in 14 minutes. Here every combination and every mask go through ONE pipeline
    over a pattern-level table:

    1. `base`: the relation grouped once by all the combinations' released and true columns;
    2. `stacked`: each pattern once per combination (`cid`), the columns outside the
       combination set to NULL on both sides (a NULL released cell on both sides is consistent,
       so they never change a count);
    3. `truth` (the true tuples, pruned as the default does) and `released` (released tuples
       with their mask: bit i set when released column i is NULL);
    4. each true tuple paired with every mask present in its combination (a broadcast join on a
       table of at most C x 2^q rows), its key the true values with the masked columns NULL;
    5. one equi-join (null-safe, `<=>`) of those keys with `released` on (cid, mask, columns),
       summed per true tuple: its consistent count, 0 when nothing matched.

    The number of stages no longer grows with the masks or the combinations. Equality with the
    default is tested in tests/integration/test_engines_release.py (DuckDB runs the default,
    Spark this form, on the same input) and tests/integration/test_spark_exact.py (both forms
    on Spark, random tables). -#}
{% macro spark__exact_risk_summary_sql(relation, combinations, k, count_column=none, prune_k=none) -%}
  {{ dbt_deid.spark_exact_consistent_ctes(relation, combinations, count_column, prune_k) }}
  select c.combination,
    {{ k }} as k,
    min(x.consistent) as min_consistent,
    cast(coalesce(sum(case when x.consistent < {{ k }} then x.n_true else 0 end), 0) as {{ dbt.type_bigint() }}) as records_below_k,
    count(x.cid) as tuples_evaluated
  from combos as c
  left join consistent as x on x.cid = c.cid
  group by c.cid, c.combination
  order by c.cid
{%- endmacro %}

{#- The distribution of the consistent counts (exact_consistent_distribution_sql) through the same pipeline:
    per combination and size of the consistent set, the records with that size (unpruned). -#}
{% macro spark__exact_consistent_distribution_sql(relation, combinations, count_column=none) -%}
  {{ dbt_deid.spark_exact_consistent_ctes(relation, combinations, count_column, none) }}
  select c.combination, x.consistent, cast(sum(x.n_true) as {{ dbt.type_bigint() }}) as records
  from combos as c
  inner join consistent as x on x.cid = c.cid
  group by c.cid, c.combination, x.consistent
{%- endmacro %}

{#- The consistent-set sizes as columns of the released pattern table (exact_consistent_columns_sql;
    session 13, the model deid_exact_consistent folded into deid_suppressed_patterns) through
    the same pipeline: every combination's true tuples counted in one pass, joined back to the
    rows by the combination's true values (NULL matching NULL, `<=>`). -#}
{% macro spark__exact_consistent_columns_sql(patterns, combinations, masks) -%}
  {%- set cols = [] -%}
  {%- for b in combinations -%}{%- for c in b -%}{%- if c not in cols -%}{%- do cols.append(c) -%}{%- endif -%}{%- endfor -%}{%- endfor -%}
  select * from (
  {{ dbt_deid.spark_exact_consistent_ctes(patterns, combinations, 'n', none) }}
  select r.*,
    {%- for b in combinations %}
    cast(coalesce(e{{ loop.index }}.consistent, 0) as {{ dbt.type_bigint() }}) as deid_consistent_{{ loop.index }},
    {%- endfor %}
    cast({{ dbt_deid.literal(tojson(combinations)) }} as {{ dbt.type_string() }}) as deid_exact_combinations
  from {{ patterns }} as r
  {%- for b in combinations %}
  {%- set e = 'e' ~ loop.index %}
  left join consistent as {{ e }}
    on {{ e }}.cid = {{ loop.index0 }}{% for c in b %} and r.{{ dbt_deid.ident(c ~ '__generalized') }} <=> {{ e }}.t{{ cols.index(c) }}{% endfor %}
  {%- endfor %}
  ) as deid_exact_columns__
{%- endmacro %}

{#- The CTEs of the Spark exact check (steps 1-5 above), ending with `consistent` (cid, t<i>,
    n_true, consistent: one row per evaluated true tuple) and `combos` (cid, combination). -#}
{% macro spark_exact_consistent_ctes(relation, combinations, count_column, prune_k) -%}
  {%- set cols = [] -%}
  {%- for b in combinations -%}{%- for c in b -%}{%- if c not in cols -%}{%- do cols.append(c) -%}{%- endif -%}{%- endfor -%}{%- endfor -%}
  {%- set q = cols | length -%}
  {%- if q > 62 -%}{{ exceptions.raise_compiler_error('dbt_deid: the exact check on Spark takes at most 62 quasi-identifier columns across the combinations, got ' ~ q) }}{%- endif -%}
  {%- set pub = [] -%}{%- set tru = [] -%}
  {%- for c in cols -%}{%- do pub.append(dbt_deid.ident(c)) -%}{%- do tru.append(dbt_deid.ident(c ~ '__generalized')) -%}{%- endfor -%}
  {%- set base %}
    select {% for i in range(q) %}{{ pub[i] }} as p{{ i }}, {{ tru[i] }} as t{{ i }}, {% endfor %}{% if count_column %}sum({{ dbt_deid.ident(count_column) }}){% else %}count(*){% endif %} as n
    from {{ relation }}
    group by {% for i in range(q) %}{{ pub[i] }}, {{ tru[i] }}{% if not loop.last %}, {% endif %}{% endfor %}
  {%- endset %}
  {#- base, released and consistent are read several times (cte_computed_once: once on Spark) -#}
  with base as (
    {{ dbt_deid.cte_computed_once(base) }}
  ),
  combos as (
    {%- for b in combinations %}
    select {{ loop.index0 }} as cid, {{ dbt_deid.literal(b | join('+')) }} as combination
    {%- if not loop.last %} union all{% endif %}
    {%- endfor %}
  ),
  stacked as (
    select c.cid,
      {%- for i in range(q) %}
      {%- set inside = [] -%}{%- for b in combinations -%}{%- if cols[i] in b -%}{%- do inside.append(loop.index0) -%}{%- endif -%}{%- endfor %}
      case when c.cid in ({{ inside | join(', ') }}) then b.p{{ i }} end as p{{ i }},
      case when c.cid in ({{ inside | join(', ') }}) then b.t{{ i }} end as t{{ i }},
      {%- endfor %}
      b.n
    from base as b
    cross join combos as c
  ),
  {%- if prune_k is not none %}
  sized as (
    select s.*, sum(n) over (partition by cid{% for i in range(q) %}, p{{ i }}{% endfor %}) as f
    from stacked as s
  ),
  {%- endif %}
  truth as (
    select cid, {% for i in range(q) %}t{{ i }}, {% endfor %}sum(n) as n_true
    from {{ 'sized' if prune_k is not none else 'stacked' }}
    group by cid{% for i in range(q) %}, t{{ i }}{% endfor %}
    {%- if prune_k is not none %}
    having max(case when f >= {{ prune_k }}{% for i in range(q) %} and (p{{ i }} is null or p{{ i }} = t{{ i }}){% endfor %} then 1 else 0 end) = 0
    {%- endif %}
  ),
  {%- set released %}
    select cid, {% for i in range(q) %}p{{ i }}, {% endfor %}
      {% for i in range(q) %}(case when p{{ i }} is null then {{ 2 ** i }}L else 0 end){% if not loop.last %} + {% endif %}{% endfor %} as mask,
      sum(n) as n
    from stacked
    group by cid{% for i in range(q) %}, p{{ i }}{% endfor %}
  {%- endset %}
  released as (
    {{ dbt_deid.cte_computed_once(released) }}
  ),
  masks as (
    select distinct cid, mask from released
  ),
  keyed as (
    select /*+ BROADCAST(m) */ t.cid, {% for i in range(q) %}t.t{{ i }}, {% endfor %}t.n_true, m.mask,
      {%- for i in range(q) %}
      case when (m.mask & {{ 2 ** i }}L) <> 0 then null else t.t{{ i }} end as k{{ i }}{% if not loop.last %},{% endif %}
      {%- endfor %}
    from truth as t
    inner join masks as m on m.cid = t.cid
  ),
  {#- every true tuple has at least one mask of its combination (its own records'), so the
      left join keeps each one, with 0 when no released record matched -#}
  {%- set consistent %}
    select k.cid, {% for i in range(q) %}k.t{{ i }}, {% endfor %}k.n_true, coalesce(sum(r.n), 0) as consistent
    from keyed as k
    left join released as r
      on r.cid = k.cid and r.mask = k.mask{% for i in range(q) %} and r.p{{ i }} <=> k.k{{ i }}{% endfor %}
    group by k.cid{% for i in range(q) %}, k.t{{ i }}{% endfor %}, k.n_true
    {%- if prune_k is not none %}
    having coalesce(sum(r.n), 0) < {{ prune_k }}  {#- as the default: only the tuples below prune_k #}
    {%- endif %}
  {%- endset %}
  consistent as (
    {{ dbt_deid.cte_computed_once(consistent) }}
  )
{%- endmacro %}
