{#- The risk summary of a release (deid_diagnostics' 'risk_summary' rows): risk_summary_sql per
    verified combination for the generalized data before suppression (stage 'generalized',
    `generalized_patterns`: deid_patterns' current tuples) and for the published release (stage
    'published', `published_patterns`: deid_suppressed_patterns), both pattern tables with the
    count `n`; the published stage carries the exact check (El Emam et al. 2011, discharge PUMF:
    the smallest set of released records consistent with a record's true values, a suppressed
    cell matching anything, and the records whose set is below k), read from the distribution
    `exact` (exact_distribution_sql over deid_suppressed_patterns' exact columns), never computed
    again. `cdf` (optional): a relation of risk_cdf_sql rows of both stages over the same pattern
    tables (deid_diagnostics passes its deid_cdf__: diagnostics_rows_sql), which a form may read
    the class sizes from; the default does not. -#}
{% macro risk_summary_rows_sql(cfg, generalized_patterns, published_patterns, exact, cdf=none) -%}
  {{ return(dbt_deid.own(adapter.dispatch('risk_summary_rows_sql', 'dbt_deid'))(cfg, generalized_patterns, published_patterns, exact, cdf)) }}
{%- endmacro %}

{% macro default__risk_summary_rows_sql(cfg, generalized_patterns, published_patterns, exact, cdf=none) -%}
  with deid_classes__ as (
    select * from ({{ dbt_deid.risk_summary_sql(generalized_patterns, cfg.verified_combinations, cfg.k, cfg.tau, 'generalized', 'n') }}) as g
    union all
    select * from ({{ dbt_deid.risk_summary_sql(published_patterns, cfg.verified_combinations, cfg.k, cfg.tau, 'published', 'n') }}) as p
  ),
  {{ dbt_deid.risk_summary_exact_sql(cfg, exact) }}
{%- endmacro %}

{#- Spark (issue 37, session 18): with `cdf`, the risk CDF's rows of the same stages over the
    same pattern tables (risk_cdf_sql: per stage, combination and class size f, the records in
    classes of size f), each combination's figures are read off them: records = the sum of the
    records, classes = the sum of records / f (exact: records at f is f times the classes of
    size f), the smallest class = the smallest f, the classes and records below k likewise,
    discernibility = the sum of f x records (the sum of f x f over the classes, exact in
    decimals). The default's six GROUP BYs of the pattern tables (one per combination and
    stage, 25 s of deid_diagnostics at 2.4M records with the exact figures) are not run again:
    the CDF computed those class sizes already. The same values, term for term: each figure is
    the default's expression over the same integers. A combination without records gives the
    default's row (records NULL, classes 0, the sums NULL). -#}
{% macro spark__risk_summary_rows_sql(cfg, generalized_patterns, published_patterns, exact, cdf=none) -%}
  {%- if cdf is none -%}{{ return(dbt_deid.default__risk_summary_rows_sql(cfg, generalized_patterns, published_patterns, exact)) }}{%- endif -%}
  {%- set k = cfg.k -%}
  with deid_classes__ as (
    select s.stage, s.combination,
      {{ k }} as k,
      {{ cfg.tau }} as tau,
      cast(sum(c.records) as {{ dbt.type_bigint() }}) as records,
      cast(coalesce(sum(c.records div c.class_size), 0) as {{ dbt.type_bigint() }}) as classes,
      min(c.class_size) as smallest_class,
      1.0 / min(c.class_size) as max_risk,
      1.0 * coalesce(sum(c.records div c.class_size), 0) / sum(c.records) as mean_risk,
      cast(sum(case when c.class_size < {{ k }} then c.records div c.class_size when c.class_size is not null then 0 end) as {{ dbt.type_bigint() }}) as classes_below_k,
      cast(sum(case when c.class_size < {{ k }} then c.records when c.class_size is not null then 0 end) as {{ dbt.type_bigint() }}) as records_above_tau,
      1.0 * sum(case when c.class_size < {{ k }} then c.records when c.class_size is not null then 0 end) / sum(c.records) as share_above_tau,
      sum(1.0 * c.class_size * c.records) as discernibility
    from (
      {%- for stage in ['generalized', 'published'] %}{% set outer = loop %}
      {%- for b in cfg.verified_combinations %}
      select {{ dbt_deid.literal(stage) }} as stage, {{ dbt_deid.literal(b | join('+')) }} as combination
      {%- if not (outer.last and loop.last) %}
      union all
      {%- endif %}
      {%- endfor %}
      {%- endfor %}
    ) as s
    left join {{ cdf }} as c on c.stage = s.stage and c.combination = s.combination
    group by s.stage, s.combination
  ),
  {{ dbt_deid.risk_summary_exact_sql(cfg, exact) }}
{%- endmacro %}

{#- The end of both forms above: the exact check's figures per combination (`exact`: the
    released pattern table's consistent-set counts) as the CTE deid_exact__, joined to the
    CTE deid_classes__'s published rows (min_consistent_exact, records_below_k_exact). -#}
{% macro risk_summary_exact_sql(cfg, exact) -%}
  deid_exact__ as (
    select combination, min(consistent) as min_consistent,
      cast(coalesce(sum(case when consistent < {{ cfg.k }} then records else 0 end), 0) as {{ dbt.type_bigint() }}) as records_below_k
    from {{ exact }}
    group by combination
  )
  select c.*,
    case when c.stage = 'published' then e.min_consistent end as min_consistent_exact,
    case when c.stage = 'published' then e.records_below_k end as records_below_k_exact
  from deid_classes__ as c
  left join deid_exact__ as e on e.combination = c.combination
{%- endmacro %}
