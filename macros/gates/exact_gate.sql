{#- The exact_k_anonymity gate of the gate table, read from the exact check computed once per
    build (the deid_consistent_<i> columns of deid_suppressed_patterns, exact_consistent_columns_sql;
    the model deid_exact_consistent until session 13; issue 33, items 2 and 3). The definitive
    check (El Emam et al. 2011, discharge PUMF, "Equivalence Classes": every record's true
    values consistent with at least k released records, a suppressed cell consistent with
    anything) is not run again here; the gate proves that the counts it reads describe the
    checked release:

    1. deid_suppressed_patterns is the checked release grouped (the same multiset of released
       and true tuples: the checked release's weighted fingerprint over those columns, taken in
       the input_unchanged scan, against the pattern table's weighted by n; on an engine
       without weighted_fingerprint_select_sql, gate_published_matches_sql with the count n,
       a scan of the checked release of its own);
    2. the counts are columns of those rows, computed by the statement that wrote them (bound
       to the pattern table by construction: what patterns_hash bound before the fold), for
       the verified combinations of the settings as they are now (deid_exact_combinations).

    `patterns_problems` is checked_patterns_problems' list (proof 1), computed once for the
    gate table's gates.

    When either proof fails the gate fails (the release is refused) naming what to rebuild. -#}
{% macro gate_exact_table_result(cfg, patterns_problems) -%}
  {%- set patterns = dbt_deid.release_ref('deid_suppressed_patterns') -%}
  {%- set k = cfg.k -%}
  {%- set rebuild = ' (rebuild the release with its upstream models: dbt build -s +' ~ this.identifier ~ ')' -%}
  {%- set stale = [] -%}{%- do stale.extend(patterns_problems) -%}
  {%- if not stale -%}
    {%- set have = adapter.get_columns_in_relation(patterns) | map(attribute='name') | map('lower') | list -%}
    {%- set expected = tojson(cfg.verified_combinations) -%}
    {%- if 'deid_exact_combinations' not in have -%}
      {%- do stale.append(patterns ~ ' has no exact check (no column deid_exact_combinations)') -%}
    {%- else -%}
      {#- 2. the counts cover the verified combinations of the settings as they are now (a
          combination added with the same pattern table would otherwise have no column) -#}
      {%- set held = run_query('select distinct deid_exact_combinations from ' ~ patterns).columns[0].values() | list -%}
      {%- if held | length > 1 or (held and held[0] != expected) -%}
        {%- set shown = [] -%}
        {%- for h in held -%}{%- for b in fromjson(h) or [] -%}{%- do shown.append(b | join('+')) -%}{%- endfor -%}{%- endfor -%}
        {%- set wanted = [] -%}{%- for b in cfg.verified_combinations -%}{%- do wanted.append(b | join('+')) -%}{%- endfor -%}
        {%- do stale.append(patterns ~ ' was computed for other combinations (' ~ shown | sort | join(', ') ~ ') than the verified ones (' ~ wanted | sort | join(', ') ~ ')') -%}
      {%- endif -%}
    {%- endif -%}
  {%- endif -%}
  {%- if stale -%}
    {{ return({'gate': 'exact_k_anonymity', 'passed': false, 'failures': 1,
        'message': 'exact check: ' ~ stale | join('; ') ~ ': the exact check does not describe the checked release' ~ rebuild}) }}
  {%- endif -%}
  {%- set exact = '(' ~ dbt_deid.exact_distribution_sql(patterns, cfg.verified_combinations) ~ ') as deid_exact_distribution__' -%}
  {%- set rows = run_query(dbt_deid.gate_exact_from_distribution_sql(exact, k)).rows -%}
  {%- set parts = [] -%}
  {%- set details = [] -%}
  {%- for r in rows -%}
    {%- do parts.append(r[0] ~ ': ' ~ r[3] ~ ' record(s) consistent with fewer than k = ' ~ k ~ ' published records (smallest ' ~ r[2] ~ ')') -%}
    {%- do details.append({'combination': r[0], 'failures': r[3], 'message': 'exact check: ' ~ parts[-1]}) -%}
  {%- endfor -%}
  {{ return({'gate': 'exact_k_anonymity', 'details': details, 'passed': rows | length == 0, 'failures': rows | length,
      'message': ('exact check: ' ~ parts | join('; ')) if parts else ('exact check: every record is consistent with at least k = ' ~ k ~ ' published records')}) }}
{%- endmacro %}

{#- Why deid_suppressed_patterns does not describe the checked release `truth` (a list of
    problems, empty when it does): missing, or not `truth` grouped by its columns (`taken`:
    `truth`'s weighted fingerprint over the pattern columns, {rows, hash}, from the gate
    table's input_unchanged scan, against the pattern table's; without it,
    gate_published_matches_sql with the count n, one scan of `truth`). The gate table's gates that depend only on the
    released tuples read the pattern table when the list is empty (release_gate_results). -#}
{% macro checked_patterns_problems(cfg, truth, taken=none) -%}
  {%- set patterns = dbt_deid.release_ref('deid_suppressed_patterns') -%}
  {%- if not dbt_deid.can_inspect(patterns) -%}{{ return([patterns ~ ' is missing']) }}{%- endif -%}
  {%- if taken is not none -%}
    {#- `truth`'s weighted fingerprint over the pattern columns, taken in the gate table's
        input_unchanged scan: the pattern table's, weighted by n, must equal it -#}
    {%- set row = run_query('select ' ~ dbt_deid.weighted_fingerprint_select_sql(dbt_deid.pattern_columns(cfg), '', 'n', ['pattern_rows', 'pattern_fingerprint']) ~ ' from ' ~ patterns).rows[0] -%}
    {%- if row[1] != taken.hash -%}{{ return([patterns ~ ' differs from the checked release (' ~ row[0] ~ ' records in the pattern table, ' ~ taken.rows ~ ' checked; their weighted fingerprints differ)']) }}{%- endif -%}
    {{ return([]) }}
  {%- endif -%}
  {%- set differ = run_query(dbt_deid.gate_published_matches_sql(patterns, truth, dbt_deid.pattern_columns(cfg), none, 'n')).rows -%}
  {%- if differ -%}{{ return([patterns ~ ' differs from the checked release in ' ~ differ[0][0] ~ ' pattern(s)']) }}{%- endif -%}
  {{ return([]) }}
{%- endmacro %}

{#- The exact gate's failing rows from the distribution `exact` (exact_distribution_sql:
    combination, consistent, records): per combination with records consistent with fewer than
    k released records, the smallest set and those records (the columns of gate_exact_sql). -#}
{% macro gate_exact_from_distribution_sql(exact, k) -%}
  select combination, {{ k }} as k, min(consistent) as min_consistent, records_below_k
  from (
    select combination, consistent,
      sum(case when consistent < {{ k }} then records else 0 end) over (partition by combination) as records_below_k
    from {{ exact }}
  ) as d
  where records_below_k > 0 and consistent < {{ k }}
  group by combination, records_below_k
  order by combination
{%- endmacro %}

{#- The columns of the release's pattern tables of the checked release: each QI's released value
    and its true value at the released level (deid_suppressed_patterns). -#}
{% macro pattern_columns(cfg) -%}
  {%- set cols = [] -%}
  {%- for q in cfg.qi_names -%}{%- do cols.append(q) -%}{%- do cols.append(q ~ '__generalized') -%}{%- endfor -%}
  {{ return(cols) }}
{%- endmacro %}

