{#- An ARX hierarchy file (no header row, `;`-separated: original value, then one column per
    level) loaded as a dbt seed, as a lookup hierarchy with columns level_0, level_1, ...
    (docs/configuration.md, "Hierarchy files from ARX").

    dbt reads a seed's first line as its header, so the first hierarchy row arrives as the
    column names. This macro puts that row back as data: one row from the column names, then
    every row of the seed, all values as strings. agate renames a repeated header value
    (`Male;Male;*` becomes columns Male, Male_2, *): a column named `<earlier name>_<n>` is read
    back as `<earlier name>`. A value that agate would have changed in the header row (an empty
    cell, which agate names after its position: a, b, ...) cannot be recovered: the macro then fails, naming the seed; add a header line to the
    file instead (`level_0;level_1;...`) and use the seed directly.

    Use in a one-line model of your project, e.g. models/sex_hierarchy.sql:
        {{ dbt_deid.arx_hierarchy('sex_hierarchy_arx') }}
    with the seed configured `+delimiter: ";"` (dbt_project.yml, seeds:). -#}
{% macro arx_hierarchy(seed_name) -%}
  {{ return(dbt_deid.own(adapter.dispatch('arx_hierarchy', 'dbt_deid'))(seed_name)) }}
{%- endmacro %}

{% macro default__arx_hierarchy(seed_name) -%}
  {%- set rel = ref(seed_name) -%}
  {%- set s = dbt.type_string() -%}
  {%- if not dbt_deid.can_inspect(rel) -%}
    {#- parse time, or a fresh warehouse under compile/docs/ls: a typed empty preview -#}
    {{ return("select cast(null as " ~ s ~ ") as level_0, cast(null as " ~ s ~ ") as level_1 where 1 = 0") }}
  {%- endif -%}
  {%- set names = adapter.get_columns_in_relation(rel) | map(attribute='name') | list -%}
  {%- if names | length < 2 -%}
    {{ exceptions.raise_compiler_error("dbt_deid.arx_hierarchy('" ~ seed_name ~ "'): the seed has " ~ names | length ~ " column(s); an ARX hierarchy has the original value and at least one level per row. Is the seed's delimiter set (+delimiter: \";\")?") }}
  {%- endif -%}
  {%- set header = [] -%}
  {%- for n in names -%}
    {%- set m = modules.re.match('^(.*)_([0-9]+)$', n) -%}
    {%- if m and m.group(1) in header -%}
      {%- do header.append(m.group(1)) -%}
    {%- else -%}
      {#- agate names an empty header cell after its position: a, b, c, ... -#}
      {%- if loop.index0 < 26 and n == 'abcdefghijklmnopqrstuvwxyz'[loop.index0] -%}
        {{ exceptions.raise_compiler_error("dbt_deid.arx_hierarchy('" ~ seed_name ~ "'): the first row seems to have an empty cell (dbt named its column '" ~ n ~ "'), which cannot be recovered; add a header line (level_0;level_1;...) to the file and use the seed as the hierarchy directly") }}
      {%- endif -%}
      {%- do header.append(n) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set first = [] -%}
  {%- set rest = [] -%}
  {%- for n in names -%}
    {%- do first.append(dbt_deid.literal(header[loop.index0]) ~ ' as level_' ~ loop.index0) -%}
    {%- do rest.append('cast(' ~ dbt_deid.ident(n) ~ ' as ' ~ s ~ ') as level_' ~ loop.index0) -%}
  {%- endfor -%}
  {{ return('select ' ~ first | join(', ') ~ '\nunion all\nselect ' ~ rest | join(', ') ~ ' from ' ~ rel) }}
{%- endmacro %}
