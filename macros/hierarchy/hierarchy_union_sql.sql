{#- The body of hierarchy_sql: one UNION ALL branch per (QI, level). With `one_scan`, the rule
    branches read their column's distinct values from one GROUPING SETS query over the source
    (`grouping(<column>) = 0` marks the rows of a column's own set), not from a DISTINCT each. -#}
{% macro hierarchy_union_sql(cfg, one_scan=false) -%}
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
  {%- for q in cfg.qis -%}
    {%- if q.hierarchy is not none -%}
      {%- if q.name in lookup_of -%}
        {%- set h, cols = lookup_of[q.name] -%}
        {%- for col in cols -%}
          {%- do parts.append("select " ~ dbt_deid.literal(q.name) ~ " as qi_name, " ~ loop.index0 ~ " as level, cast(" ~ dbt_deid.ident(cols[0].name) ~ " as " ~ s ~ ") as original_value, cast(" ~ dbt_deid.ident(col.name) ~ " as " ~ s ~ ") as generalized_value from " ~ h) -%}
        {%- endfor -%}
      {%- endif -%}
    {%- else -%}
      {%- set col = dbt_deid.ident(q.column) -%}
      {%- if q.column not in scanned -%}{%- do scanned.append(q.column) -%}{%- endif -%}
      {%- set values = ("(select " ~ col ~ " as v from deid_distinct_values where g" ~ scanned.index(q.column) ~ " = 0 and " ~ col ~ " is not null)") if one_scan else ("(select distinct " ~ col ~ " as v from " ~ src ~ " as s_in where " ~ col ~ " is not null)") -%}
      {%- set n_levels = (q.rule['levels'] | length + 1) if q.rule is not none else 1 -%}
      {%- for level in range(n_levels) -%}
        {%- set expr = dbt_deid.rule_level_sql(q.rule, level, 'v') if q.rule is not none else 'cast(v as ' ~ s ~ ')' -%}
        {%- do parts.append("select " ~ dbt_deid.literal(q.name) ~ " as qi_name, " ~ level ~ " as level, cast(v as " ~ s ~ ") as original_value, " ~ expr ~ " as generalized_value from " ~ values ~ " as d") -%}
      {%- endfor -%}
    {%- endif -%}
  {%- endfor -%}
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
