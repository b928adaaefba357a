{#- The release gates: generic tests with severity error, attached to deid_suppressed so that
    `dbt build` skips the publish model when one fails. They return only counts and the
    combination or column name, never quasi-identifier values (also with store_failures). -#}

{#- Every protected combination has no class smaller than k, a suppressed value being its own
    category (sufficient for the guarantee). -#}
{% test deid_k_anonymity(model, combinations=none, k=none) %}
  {{ adapter.dispatch('test_deid_k_anonymity', 'dbt_deid')(model, combinations, k) }}
{% endtest %}

{% macro default__test_deid_k_anonymity(model, combinations, k) %}
  {%- set cfg = dbt_deid.release_config() if dbt_deid.release_enabled() else none -%}
  {%- if cfg is none %}
  select 'no release declared in var deid_release' as error
  {%- else -%}
  {%- set combos = combinations if combinations is not none else cfg.combinations -%}
  {%- set k = k if k is not none else cfg.k -%}
  select combination, k, classes_below_k as small_classes, records_above_tau as records_in_small_classes, smallest_class
  from ({{ dbt_deid.risk_summary_sql(model, combos, k, 1.0 / k, 'gate') }}) as s
  where smallest_class < {{ k }}
  {%- endif %}
{% endmacro %}

{#- The definitive check: every record's true values are consistent with at least k released
    records (a suppressed cell is consistent with anything). -#}
{% test deid_exact_k_anonymity(model, combinations=none, k=none) %}
  {{ adapter.dispatch('test_deid_exact_k_anonymity', 'dbt_deid')(model, combinations, k) }}
{% endtest %}

{% macro default__test_deid_exact_k_anonymity(model, combinations, k) %}
  {%- set cfg = dbt_deid.release_config() if dbt_deid.release_enabled() else none -%}
  {%- if cfg is none %}
  select 'no release declared in var deid_release' as error
  {%- else -%}
  {%- set combos = combinations if combinations is not none else cfg.combinations -%}
  {%- set k = k if k is not none else cfg.k -%}
  {#- prune_k = k: only the true tuples that could fall below k are joined (see
      exact_consistent_sql); each gets its exact count, so the verdict is the full one's. #}
  select combination, k, min_consistent, records_below_k
  from ({{ dbt_deid.exact_risk_summary_sql(model, combos, k, none, k) }}) as s
  where records_below_k > 0
  {%- endif %}
{% endmacro %}

{#- MaxSup: the share of records with any suppressed QI is at most max_suppression. -#}
{% test deid_max_suppression(model, max_suppression=none, columns=none) %}
  {{ adapter.dispatch('test_deid_max_suppression', 'dbt_deid')(model, max_suppression, columns) }}
{% endtest %}

{% macro default__test_deid_max_suppression(model, max_suppression, columns) %}
  {%- set cfg = dbt_deid.release_config() if dbt_deid.release_enabled() else none -%}
  {%- if cfg is none %}
  select 'no release declared in var deid_release' as error
  {%- else -%}
  {%- set limit = max_suppression if max_suppression is not none else cfg.max_suppression -%}
  {%- set cols = columns if columns is not none else cfg.released_qis -%}
  {%- set any_null = [] -%}
  {%- for c in cols -%}{%- do any_null.append(dbt_deid.ident(c) ~ ' is null') -%}{%- endfor -%}
  select records, records_with_suppression, share_records_with_suppression, {{ limit }} as max_suppression
  from (
    select count(*) as records,
      sum(case when {{ any_null | join(' or ') }} then 1 else 0 end) as records_with_suppression,
      1.0 * sum(case when {{ any_null | join(' or ') }} then 1 else 0 end) / count(*) as share_records_with_suppression
    from {{ model }}
  ) as s
  where share_records_with_suppression > {{ limit }}
  {%- endif %}
{% endmacro %}

{#- Per-column cap (seed 003: 15%): the share of a column's cells suppressed is at most its cap. -#}
{% test deid_column_suppression_cap(model, caps=none) %}
  {{ adapter.dispatch('test_deid_column_suppression_cap', 'dbt_deid')(model, caps) }}
{% endtest %}

{% macro default__test_deid_column_suppression_cap(model, caps) %}
  {%- set cfg = dbt_deid.release_config() if dbt_deid.release_enabled() else none -%}
  {%- if cfg is none %}
  select 'no release declared in var deid_release' as error
  {%- else -%}
  {%- set pairs = [] -%}
  {%- if caps is not none -%}
    {%- for c, cap in caps.items() -%}{%- do pairs.append((c, cap)) -%}{%- endfor -%}
  {%- else -%}
    {%- for q in cfg.qis -%}{%- if q.cap is not none -%}{%- do pairs.append((q.name, q.cap)) -%}{%- endif -%}{%- endfor -%}
  {%- endif -%}
  {%- if pairs | length == 0 %}
  select 1 as no_cap where 1 = 0
  {%- else %}
  select column_name, suppressed_cells, share_suppressed, cap from (
    {%- for c, cap in pairs %}
    select {{ dbt_deid.literal(c) }} as column_name,
      sum(case when {{ dbt_deid.ident(c) }} is null then 1 else 0 end) as suppressed_cells,
      1.0 * sum(case when {{ dbt_deid.ident(c) }} is null then 1 else 0 end) / count(*) as share_suppressed,
      {{ cap }} as cap
    from {{ model }}
    {%- if not loop.last %} union all{% endif %}
    {%- endfor %}
  ) as s
  where share_suppressed > cap
  {%- endif %}
  {%- endif %}
{% endmacro %}

{#- Records are never silently dropped: the model has as many rows as the release input (the
    source, or its sample when the release sets `sample`). -#}
{% test deid_row_count_matches_source(model) %}
  {{ adapter.dispatch('test_deid_row_count_matches_source', 'dbt_deid')(model) }}
{% endtest %}

{% macro default__test_deid_row_count_matches_source(model) %}
  {%- set cfg = dbt_deid.release_config() if dbt_deid.release_enabled() else none -%}
  {%- if cfg is none %}
  select 'no release declared in var deid_release' as error
  {%- else -%}
  select m.records as model_records, s.records as source_records
  from (select count(*) as records from {{ model }}) as m
  cross join (select count(*) as records from {{ dbt_deid.release_input(cfg) }} as src) as s
  where m.records <> s.records
  {%- endif %}
{% endmacro %}
