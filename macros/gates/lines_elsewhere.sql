{#- Release lines of the same source recorded in another schema's history (review 18 F2,
    review 20 F-A): a discharge line's memory is its history (next to the published table) and
    its store and key (in the working schema). Moving both schemas between builds left neither,
    so the next build published a version 1 beside the old line, and a recipient of both could
    combine them (by person, records consistent with 3 < k = 5). A release with no earlier
    release in its own history looks for histories in every other schema of the target
    database; one that records a published release over the same source (schema and table of
    its `input_relation`, the database not compared: a renamed DuckDB file keeps its line)
    makes the gate refuse, naming where that line is and the way out. Messages name schemas,
    release names and versions only. `cfg`: the release's settings; `history`: this release's
    deid_release_history relation. Returns a list of "<schema>.deid_release_history: '<name>'
    version <n>" texts (empty: none). -#}
{% macro lines_elsewhere(cfg, history) -%}
  {{ return(dbt_deid.own(adapter.dispatch('lines_elsewhere', 'dbt_deid'))(cfg, history)) }}
{%- endmacro %}

{% macro default__lines_elsewhere(cfg, history) -%}
  {%- set mine = dbt_deid.line_source(cfg) | replace('"', '') | replace('`', '') | lower -%}
  {%- set here = history.schema | lower -%}
  {%- set found = [] -%}
  {%- set schemas = [] -%}
  {%- for row in list_schemas(history.database) -%}{%- do schemas.append(row[0] | string) -%}{%- endfor -%}
  {%- for schema in schemas | sort if schema | lower != here -%}
    {%- set other = adapter.get_relation(history.database, schema, 'deid_release_history') -%}
    {%- if other is not none -%}
      {%- for r in run_query("select release_name, max(release_version), input_relation from " ~ other ~ " where status = 'published' and input_relation is not null group by release_name, input_relation order by 1").rows -%}
        {%- set parts = (r[2] | replace('"', '') | replace('`', '') | lower).split('.') -%}
        {%- if parts[-2:] | join('.') == mine.split('.')[-2:] | join('.') -%}
          {%- do found.append(schema ~ ".deid_release_history: '" ~ r[0] ~ "' version " ~ r[1]) -%}
        {%- endif -%}
      {%- endfor -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(found) }}
{%- endmacro %}
