{#- Checks of a lookup hierarchy: enough levels for the released level, no duplicate original
    value, no NULL in any level. Raises an error naming the QI, the hierarchy and the value. -#}
{% macro assert_lookup_hierarchy(q, relation, cols) -%}
  {{ return(dbt_deid.own(adapter.dispatch('assert_lookup_hierarchy', 'dbt_deid'))(q, relation, cols)) }}
{%- endmacro %}

{% macro default__assert_lookup_hierarchy(q, relation, cols) -%}
  {%- set where = dbt_deid._assert_lookup_levels(q, relation, cols) -%}
  {%- set key = dbt_deid.ident(cols[0].name) -%}
  {%- set dup -%}
    select cast({{ key }} as {{ dbt.type_string() }}) as v, count(*) as n from {{ relation }} group by {{ key }} having count(*) > 1 order by 1 limit 3
  {%- endset -%}
  {%- set rows = run_query(dup).rows -%}
  {%- if rows | length > 0 -%}
    {{ exceptions.raise_compiler_error(where ~ " has duplicate key value '" ~ rows[0][0] ~ "' (" ~ rows[0][1] ~ " rows)") }}
  {%- endif -%}
  {%- set nulls = [] -%}
  {%- for col in cols -%}
    {%- do nulls.append("select " ~ loop.index0 ~ " as level, cast(" ~ key ~ " as " ~ dbt.type_string() ~ ") as v from " ~ relation ~ " where " ~ dbt_deid.ident(col.name) ~ " is null") -%}
  {%- endfor -%}
  {%- set rows = run_query("select level, v from (" ~ nulls | join(' union all ') ~ ") as x order by level, v limit 1").rows -%}
  {%- if rows | length > 0 -%}
    {{ exceptions.raise_compiler_error(where ~ " has an empty value at level " ~ rows[0][0] ~ " for key '" ~ rows[0][1] ~ "'") }}
  {%- endif -%}
{%- endmacro %}

{#- The checks that need no query (the hierarchy exists, it has the released level); returns
    the error messages' subject ("model ...: hierarchy '...' of column '...'"). -#}
{% macro _assert_lookup_levels(q, relation, cols) -%}
  {%- set where = "model " ~ this.identifier ~ ": hierarchy '" ~ q.hierarchy ~ "' of column '" ~ q.name ~ "'" -%}
  {%- if cols | length == 0 -%}
    {{ exceptions.raise_compiler_error(where ~ " is missing: " ~ relation ~ " does not exist in the warehouse (or has no columns); load the seed (dbt seed) or build the model first") }}
  {%- endif -%}
  {%- if cols | length < q.level + 1 -%}
    {{ exceptions.raise_compiler_error(where ~ " has " ~ (cols | length - 1) ~ " levels but level " ~ q.level ~ " is released") }}
  {%- endif -%}
  {{ return(where) }}
{%- endmacro %}

{#- The checks of every lookup hierarchy of a release (`lookups`: (QI, relation, columns) in QI
    order), each QI's as assert_lookup_hierarchy makes them and the first failure raised the
    same: per QI the released level, then a duplicate key, then an empty value. -#}
{% macro assert_lookup_hierarchies(lookups) -%}
  {{ return(dbt_deid.own(adapter.dispatch('assert_lookup_hierarchies', 'dbt_deid'))(lookups)) }}
{%- endmacro %}

{% macro default__assert_lookup_hierarchies(lookups) -%}
  {%- for q, relation, cols in lookups -%}
    {%- do dbt_deid.assert_lookup_hierarchy(q, relation, cols) -%}
  {%- endfor -%}
{%- endmacro %}

{#- Spark (issue 37): every hierarchy's duplicate keys and empty values from one query, not two
    per QI (each statement costs Spark a job and dbt-spark a round trip: deid_hierarchy spent
    half its time on 17 such statements at 240,000 records). Per (hierarchy, check) the first
    row in the order assert_lookup_hierarchy reads (the smallest duplicate key as text; the
    lowest level, then key, of an empty value); a hierarchy serving two QIs is read once. The
    errors and their order are assert_lookup_hierarchy's. -#}
{% macro spark__assert_lookup_hierarchies(lookups) -%}
  {%- set s = dbt.type_string() -%}
  {%- set relations = [] -%}{%- set branches = [] -%}
  {%- for q, relation, cols in lookups -%}
    {%- if cols | length >= q.level + 1 and cols | length > 0 and (relation | string) not in relations -%}
      {%- set i = relations | length -%}{%- do relations.append(relation | string) -%}
      {%- set key = dbt_deid.ident(cols[0].name) -%}
      {%- do branches.append("select " ~ i ~ " as h, 0 as kind, 0 as level, cast(" ~ key ~ " as " ~ s ~ ") as v, count(*) as n from " ~ relation ~ " group by " ~ key ~ " having count(*) > 1") -%}
      {%- for col in cols -%}
        {%- do branches.append("select " ~ i ~ " as h, 1 as kind, " ~ loop.index0 ~ " as level, cast(" ~ key ~ " as " ~ s ~ ") as v, 0 as n from " ~ relation ~ " where " ~ dbt_deid.ident(col.name) ~ " is null") -%}
      {%- endfor -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set found = {} -%}
  {%- if branches | length > 0 -%}
    {%- set sql = "select h, kind, level, v, n from (select h, kind, level, v, n, row_number() over (partition by h, kind order by level, v) as r from (" ~ branches | join(' union all ') ~ ") as x) as y where r = 1" -%}
    {%- for row in run_query(sql).rows -%}
      {%- do found.update({(row[0] | int) ~ ':' ~ (row[1] | int): row}) -%}
    {%- endfor -%}
  {%- endif -%}
  {%- for q, relation, cols in lookups -%}
    {%- set where = dbt_deid._assert_lookup_levels(q, relation, cols) -%}
    {%- set i = relations.index(relation | string) -%}
    {%- set dup = found.get(i ~ ':0') -%}
    {%- if dup is not none -%}
      {{ exceptions.raise_compiler_error(where ~ " has duplicate key value '" ~ dup[3] ~ "' (" ~ dup[4] ~ " rows)") }}
    {%- endif -%}
    {%- set empty = found.get(i ~ ':1') -%}
    {%- if empty is not none -%}
      {{ exceptions.raise_compiler_error(where ~ " has an empty value at level " ~ empty[2] ~ " for key '" ~ empty[3] ~ "'") }}
    {%- endif -%}
  {%- endfor -%}
{%- endmacro %}
