{#- The long hierarchy table of a release: one row per (qi_name, level, original_value) with its
    generalized_value. Lookup hierarchies (seeds or models whose first column is the original
    value and whose next columns are levels 1, 2, ...) are unpivoted; rule-based QIs are
    materialized from the distinct source values. Validates duplicate keys, missing levels and
    NULL generalizations, naming the model, column and value. -#}
{% macro hierarchy_sql(cfg) -%}
  {{ return(dbt_deid.own(adapter.dispatch('hierarchy_sql', 'dbt_deid'))(cfg)) }}
{%- endmacro %}

{% macro default__hierarchy_sql(cfg) -%}
  {#- Under compile/docs/ls the data checks are skipped (dbt_deid.run_data_checks), and on a
      fresh warehouse a lookup hierarchy not built yet contributes no rows to the preview
      (dbt_deid.can_inspect). -#}
  {%- if dbt_deid.run_data_checks() -%}
    {%- do dbt_deid.assert_source_columns(cfg) -%}
    {%- do dbt_deid.assert_rule_values(cfg) -%}
  {%- endif -%}
  {%- set src = dbt_deid.protected_input(cfg) -%}
  {%- set s = dbt.type_string() -%}
  {%- set parts = [] -%}
  {%- for q in cfg.qis -%}
    {%- if q.hierarchy is not none -%}
      {#- the remedied small-area hierarchy is a model of the release itself -#}
      {%- set h = dbt_deid.release_ref(q.hierarchy) if q.hierarchy == 'deid_small_area_hierarchy' else ref(q.hierarchy) -%}
      {%- if dbt_deid.can_inspect(h) -%}
        {%- set cols = adapter.get_columns_in_relation(h) -%}
        {%- if dbt_deid.run_data_checks() -%}{%- do dbt_deid.assert_lookup_hierarchy(q, h, cols) -%}{%- endif -%}
        {%- for col in cols -%}
          {%- do parts.append("select " ~ dbt_deid.literal(q.name) ~ " as qi_name, " ~ loop.index0 ~ " as level, cast(" ~ dbt_deid.ident(cols[0].name) ~ " as " ~ s ~ ") as original_value, cast(" ~ dbt_deid.ident(col.name) ~ " as " ~ s ~ ") as generalized_value from " ~ h) -%}
        {%- endfor -%}
      {%- endif -%}
    {%- else -%}
      {%- set col = dbt_deid.ident(q.column) -%}
      {%- set n_levels = (q.rule['levels'] | length + 1) if q.rule is not none else 1 -%}
      {%- for level in range(n_levels) -%}
        {%- set expr = dbt_deid.rule_level_sql(q.rule, level, 'v') if q.rule is not none else 'cast(v as ' ~ s ~ ')' -%}
        {%- do parts.append("select " ~ dbt_deid.literal(q.name) ~ " as qi_name, " ~ level ~ " as level, cast(v as " ~ s ~ ") as original_value, " ~ expr ~ " as generalized_value from (select distinct " ~ col ~ " as v from " ~ src ~ " as s_in where " ~ col ~ " is not null) as d") -%}
      {%- endfor -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if parts | length == 0 -%}
    {{ return("select cast(null as " ~ s ~ ") as qi_name, 0 as level, cast(null as " ~ s ~ ") as original_value, cast(null as " ~ s ~ ") as generalized_value where 1 = 0") }}
  {%- endif -%}
  {{ return(parts | join('\nunion all\n')) }}
{%- endmacro %}
