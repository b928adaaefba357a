{#- The body of hierarchy_sql: one UNION ALL branch per (QI, level). With `one_scan`, the rule
    branches read their column's distinct values from one GROUPING SETS query over the source
    (`grouping(<column>) = 0` marks the rows of a column's own set), not from a DISTINCT each.
    With `stacked` (Spark, issue 37, session 18), one branch per lookup relation and one per
    scanned source column instead: the relation (or the column's distinct values) is read once
    and each of its (QI, level) rows comes out of a `lateral view stack(...)` whose entries are
    the same expressions as the branches' (the same rows; 8 branches instead of 25 at the
    benchmark's settings, each a file scan or a read of the shared CTE, planned and run as its
    own tasks on Spark). -#}
{% macro hierarchy_union_sql(cfg, one_scan=false, stacked=false) -%}
  {#- Under compile/docs/ls the data checks are skipped (dbt_deid.run_data_checks), and on a
      fresh warehouse a lookup hierarchy not built yet contributes no rows to the preview
      (dbt_deid.can_inspect). -#}
  {%- if dbt_deid.run_data_checks() -%}
    {%- do dbt_deid.assert_source_columns(cfg) -%}
    {%- do dbt_deid.assert_rule_values(cfg) -%}
  {%- endif -%}
  {%- set src = dbt_deid.protected_input(cfg) -%}
  {%- set s = dbt.type_string() -%}
  {#- the lookup hierarchies' columns, each relation described once (a hierarchy can serve two
      QIs), then their checks (dbt_deid.assert_lookup_hierarchies: one query on Spark) -#}
  {%- set lookups = [] -%}{%- set described = {} -%}{%- set lookup_of = {} -%}
  {%- for q in cfg.qis if q.hierarchy is not none -%}
    {#- the remedied small-area hierarchy is a model of the release itself -#}
    {%- set h = dbt_deid.release_ref(q.hierarchy) if q.hierarchy == 'deid_small_area_hierarchy' else ref(q.hierarchy) -%}
    {%- if dbt_deid.can_inspect(h) -%}
      {%- if (h | string) not in described -%}{%- do described.update({(h | string): adapter.get_columns_in_relation(h)}) -%}{%- endif -%}
      {%- do lookups.append((q, h, described[h | string])) -%}
      {%- do lookup_of.update({q.name: (h, described[h | string])}) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if dbt_deid.run_data_checks() -%}{%- do dbt_deid.assert_lookup_hierarchies(lookups) -%}{%- endif -%}
  {%- set parts = [] -%}{%- set scanned = [] -%}
  {#- with `stacked`: per source (a lookup relation, or a scanned column's distinct values) its
      FROM clause and its (QI, level, original value, generalized value) entries, in order -#}
  {%- set sources = [] -%}{%- set entries = {} -%}
  {%- for q in cfg.qis -%}
    {%- if q.hierarchy is not none -%}
      {%- if q.name in lookup_of -%}
        {%- set h, cols = lookup_of[q.name] -%}
        {%- set from_sql = (h | string) ~ (" as deid_lookup__" if stacked else "") -%}
        {%- if from_sql not in entries -%}{%- do sources.append(from_sql) -%}{%- do entries.update({from_sql: []}) -%}{%- endif -%}
        {%- set at = "deid_lookup__." if stacked else "" -%}
        {%- for col in cols -%}
          {%- do entries[from_sql].append([dbt_deid.literal(q.name), loop.index0, "cast(" ~ at ~ dbt_deid.ident(cols[0].name) ~ " as " ~ s ~ ")", "cast(" ~ at ~ dbt_deid.ident(col.name) ~ " as " ~ s ~ ")"]) -%}
          {%- do parts.append("select " ~ dbt_deid.literal(q.name) ~ " as qi_name, " ~ loop.index0 ~ " as level, cast(" ~ dbt_deid.ident(cols[0].name) ~ " as " ~ s ~ ") as original_value, cast(" ~ dbt_deid.ident(col.name) ~ " as " ~ s ~ ") as generalized_value from " ~ h) -%}
        {%- endfor -%}
      {%- endif -%}
    {%- else -%}
      {%- set col = dbt_deid.ident(q.column) -%}
      {%- if q.column not in scanned -%}{%- do scanned.append(q.column) -%}{%- endif -%}
      {%- set values = ("(select " ~ col ~ " as v from deid_distinct_values where g" ~ scanned.index(q.column) ~ " = 0 and " ~ col ~ " is not null)") if one_scan else ("(select distinct " ~ col ~ " as v from " ~ src ~ " as s_in where " ~ col ~ " is not null)") -%}
      {%- set from_sql = values ~ " as d" -%}
      {%- if from_sql not in entries -%}{%- do sources.append(from_sql) -%}{%- do entries.update({from_sql: []}) -%}{%- endif -%}
      {%- set n_levels = (q.rule['levels'] | length + 1) if q.rule is not none else 1 -%}
      {%- for level in range(n_levels) -%}
        {%- set expr = dbt_deid.rule_level_sql(q.rule, level, 'v') if q.rule is not none else 'cast(v as ' ~ s ~ ')' -%}
        {#- (cast: a generator's entries must have one type per column; a UNION coerces the
            branches to text the same way) -#}
        {%- do entries[from_sql].append([dbt_deid.literal(q.name), level, "cast(v as " ~ s ~ ")", "cast(" ~ expr ~ " as " ~ s ~ ")"]) -%}
        {%- do parts.append("select " ~ dbt_deid.literal(q.name) ~ " as qi_name, " ~ level ~ " as level, cast(v as " ~ s ~ ") as original_value, " ~ expr ~ " as generalized_value from " ~ values ~ " as d") -%}
      {%- endfor -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if stacked and parts | length > 0 -%}
    {#- one branch per source: its entries as rows of a generator (stack(n, e1..., e2..., ...)),
        the generator's columns named apart from any column of the source -#}
    {%- set parts = [] -%}
    {%- for from_sql in sources -%}
      {%- set args = [] -%}
      {%- for e in entries[from_sql] -%}{%- do args.append(e | join(', ')) -%}{%- endfor -%}
      {%- do parts.append("select deid_row__.deid_qi__ as qi_name, deid_row__.deid_level__ as level, deid_row__.deid_original__ as original_value, deid_row__.deid_generalized__ as generalized_value from " ~ from_sql ~ " lateral view stack(" ~ entries[from_sql] | length ~ ", " ~ args | join(', ') ~ ") deid_row__ as deid_qi__, deid_level__, deid_original__, deid_generalized__") -%}
    {%- endfor -%}
  {%- endif -%}
  {%- if parts | length == 0 -%}
    {{ return("select cast(null as " ~ s ~ ") as qi_name, 0 as level, cast(null as " ~ s ~ ") as original_value, cast(null as " ~ s ~ ") as generalized_value where 1 = 0") }}
  {%- endif -%}
  {%- if one_scan and scanned | length > 0 -%}
    {%- set cols = [] -%}{%- set flags = [] -%}{%- set sets = [] -%}
    {%- for c in scanned -%}
      {%- do cols.append(dbt_deid.ident(c)) -%}
      {%- do flags.append("grouping(" ~ dbt_deid.ident(c) ~ ") as g" ~ loop.index0) -%}
      {%- do sets.append("(" ~ dbt_deid.ident(c) ~ ")") -%}
    {%- endfor -%}
    {#- read by every rule level of every scanned QI: computed once (cte_computed_once; on
        Spark each reference otherwise scanned and grouped the source again, issue 37) -#}
    {%- set distinct_values = "select " ~ (cols + flags) | join(', ') ~ " from " ~ src ~ " as s_in group by grouping sets (" ~ sets | join(', ') ~ ")" -%}
    {{ return("with deid_distinct_values as " ~ dbt_deid.cte_materialized() ~ "(" ~ dbt_deid.cte_computed_once(distinct_values) ~ ")\n" ~ parts | join('\nunion all\n')) }}
  {%- endif -%}
  {{ return(parts | join('\nunion all\n')) }}
{%- endmacro %}
