{#- The gate propagation (review 11 final, M2): the checked release carries every suppression
    propagation pair of the release plan (deid_release_plan, kind `propagation`: [source,
    target] pairs of hierarchy levels, dbt_deid.families.propagation_pairs). El Emam et al. 2011
    (discharge PUMF, Table 4) publish a level "except when it generalizes to a suppressed
    value": when a record's `source` cell is suppressed, its `target` cell must be suppressed
    too. The core accepts a released level that is in no verified combination only where
    propagation protects it (families.check_unchecked_levels), and the exact and combined checks
    cover the verified combinations only; so a suppression map that missed a pair (review 11,
    F2 and F3 were that kind of bug) would publish the unchecked level with every other gate
    passing. This gate counts, per pair, the records of the checked release (deid_suppressed,
    which published_matches_checked proves equal to what is published) whose `source` cell is
    suppressed (null; a missing original value is the missing label, its own category, not a
    suppressed cell) and whose `target` cell is not. The counts are taken in the gate table's
    one scan of the checked release (input_unchanged's, gate_input_unchanged_sql) on the
    engines that fingerprint in SQL, in one query of its own elsewhere. A release whose plan
    has no pair (no hierarchical QIs) has no such gate (as small_areas when not configured).
    Messages name the pairs and counts only. -#}

{#- The select-list items counting, over the rows of `prefix` (a subquery of the checked
    release with deid_present__ = 1 on its rows; `prefix` is its alias with the dot, 't.'),
    per pair (the i-th of `pairs`, [source, target]) the records whose source is suppressed
    and whose target is not: `propagation_misses_<i>`. -#}
{% macro propagation_sums_sql(pairs, prefix) -%}
  {%- set sums = [] -%}
  {%- for p in pairs -%}
    {%- do sums.append('coalesce(sum(case when ' ~ prefix ~ 'deid_present__ = 1 and ' ~ prefix ~ dbt_deid.ident(p[0]) ~ ' is null and '
        ~ prefix ~ dbt_deid.ident(p[1]) ~ ' is not null then 1 else 0 end), 0) as propagation_misses_' ~ loop.index) -%}
  {%- endfor -%}
  {{ return(sums | join(', ')) }}
{%- endmacro %}

{#- The gate propagation for `truth` and the plan's `pairs` (release_plan('propagation')):
    {gate, passed, failures (records whose target was not suppressed, summed over the pairs),
    message}, or none when there is no pair. `misses` (a list of counts, one per pair, from
    the gate table's scan, gate_input_unchanged_result) or none: counted here, one query. -#}
{% macro gate_propagation_result(truth, pairs, misses=none) -%}
  {%- if not pairs -%}{{ return(none) }}{%- endif -%}
  {%- set counts = misses -%}
  {%- if counts is none -%}
    {%- set row = run_query('select ' ~ dbt_deid.propagation_sums_sql(pairs, 't.') ~ ' from (select *, 1 as deid_present__ from ' ~ truth ~ ') as t').rows[0] -%}
    {%- set counts = [] -%}
    {%- for p in pairs -%}{%- do counts.append(row[loop.index0] | int) -%}{%- endfor -%}
  {%- endif -%}
  {%- set bad = [] -%}{%- set records = [0] -%}
  {%- for p in pairs -%}
    {%- set c = counts[loop.index0] | int -%}
    {%- do records.append(c) -%}
    {%- if c > 0 -%}{%- do bad.append(p[0] ~ ' -> ' ~ p[1] ~ ' (' ~ c ~ ' record(s))') -%}{%- endif -%}
  {%- endfor -%}
  {{ return({'gate': 'propagation', 'passed': bad | length == 0, 'failures': records | sum,
      'message': ('the checked release ' ~ truth ~ ' shows a level whose source level is suppressed (suppression propagation, El Emam et al. 2011 Table 4): '
                  ~ bad | join(', ') ~ '; the suppression map missed these propagation pairs of the release plan; rebuild the release with its upstream models (dbt build -s +deid_published), and report the bug if it persists') if bad
                 else 'suppression propagated on every pair of the release plan (' ~ pairs | length ~ ' pair(s))'}) }}
{%- endmacro %}
