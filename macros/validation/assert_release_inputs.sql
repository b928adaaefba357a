{#- Data checks made before the generalized table is built, each failing with one message that
    names the model, column and value: every configured column exists in the source, the
    source is not empty, record_id is unique and not null, interval/date rule values parse,
    and every source value of a lookup-hierarchy QI is in its hierarchy. A NULL QI value is a
    missing value (its own category), not an error. -#}
{% macro assert_release_inputs(cfg, hierarchy_relation) -%}
  {{ return(adapter.dispatch('assert_release_inputs', 'dbt_deid')(cfg, hierarchy_relation)) }}
{%- endmacro %}

{% macro default__assert_release_inputs(cfg, hierarchy_relation) -%}
  {%- set src = dbt_deid.release_input(cfg) ~ ' as src_in' -%}
  {%- set model = "model " ~ this.identifier -%}
  {%- do dbt_deid.assert_source_columns(cfg) -%}
  {%- set stats = run_query("select count(*), count(distinct " ~ dbt_deid.ident(cfg.record_id) ~ "), count(" ~ dbt_deid.ident(cfg.record_id) ~ ") from " ~ src).rows[0] -%}
  {%- if stats[0] == 0 -%}
    {{ exceptions.raise_compiler_error(model ~ ": source " ~ dbt_deid.release_source(cfg) ~ " has no records" ~ (" in its sample" if cfg.sample is not none else "") ~ "; nothing to release") }}
  {%- endif -%}
  {%- if stats[2] != stats[0] -%}
    {{ exceptions.raise_compiler_error(model ~ ": column '" ~ cfg.record_id ~ "' (record_id) is NULL in " ~ (stats[0] - stats[2]) ~ " records") }}
  {%- endif -%}
  {%- if stats[1] != stats[0] -%}
    {{ exceptions.raise_compiler_error(model ~ ": column '" ~ cfg.record_id ~ "' (record_id) is not unique: " ~ stats[0] ~ " records, " ~ stats[1] ~ " distinct values") }}
  {%- endif -%}
  {%- for q in cfg.qis -%}
    {%- set col = dbt_deid.ident(q.column) -%}
    {%- if q.rule is not none and q.rule.type in ['interval', 'date'] -%}
      {%- set target = dbt.type_float() if q.rule.type == 'interval' else 'date' -%}
      {%- set bad = run_query("select distinct cast(" ~ col ~ " as " ~ dbt.type_string() ~ ") from " ~ src ~ " where " ~ col ~ " is not null and " ~ dbt.safe_cast(col, target) ~ " is null order by 1 limit 1").rows -%}
      {%- if bad | length > 0 -%}
        {{ exceptions.raise_compiler_error(model ~ ": column '" ~ q.column ~ "' value '" ~ bad[0][0] ~ "' is not a " ~ ('number' if q.rule.type == 'interval' else 'date') ~ " (rule " ~ q.rule.type ~ ")") }}
      {%- endif -%}
    {%- elif q.hierarchy is not none -%}
      {%- set missing -%}
        select distinct cast(src_in.{{ col }} as {{ dbt.type_string() }}) as v
        from {{ src }}
        left join (select original_value from {{ hierarchy_relation }} where qi_name = {{ dbt_deid.literal(q.name) }} and level = 0) as h
          on cast(src_in.{{ col }} as {{ dbt.type_string() }}) = h.original_value
        where src_in.{{ col }} is not null and h.original_value is null
        order by 1
      {%- endset -%}
      {%- set rows = run_query(missing).rows -%}
      {%- if rows | length > 0 -%}
        {{ exceptions.raise_compiler_error(model ~ ": column '" ~ q.column ~ "' value '" ~ rows[0][0] ~ "' is missing from hierarchy '" ~ q.hierarchy ~ "'" ~ ((" (" ~ (rows | length - 1) ~ " more values missing)") if rows | length > 1 else "")) }}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
{%- endmacro %}

{#- Every column the release names (QIs, record_id, direct identifiers) exists in the source. -#}
{% macro assert_source_columns(cfg) -%}
  {{ return(adapter.dispatch('assert_source_columns', 'dbt_deid')(cfg)) }}
{%- endmacro %}

{% macro default__assert_source_columns(cfg) -%}
  {%- set src = dbt_deid.release_source(cfg) -%}
  {%- set names = adapter.get_columns_in_relation(src) | map(attribute='name') | map('lower') | list -%}
  {%- set wanted = [('record_id', cfg.record_id)] -%}
  {%- for q in cfg.qis -%}{%- do wanted.append(('quasi_identifiers.' ~ q.name ~ (' (column)' if q.column != q.name else ''), q.column)) -%}{%- endfor -%}
  {%- for d in cfg.direct_identifiers -%}{%- do wanted.append(('direct_identifiers', d)) -%}{%- endfor -%}
  {%- for setting, col in wanted -%}
    {%- if col | lower not in names -%}
      {{ exceptions.raise_compiler_error("model " ~ this.identifier ~ ": release setting '" ~ setting ~ "' names column '" ~ col ~ "', which is not in source " ~ src ~ " (columns: " ~ names | join(', ') ~ ")") }}
    {%- endif -%}
  {%- endfor -%}
{%- endmacro %}
