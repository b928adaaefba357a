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
