{#- Working models whose config would share them (review 8, F6): a non-empty `grants` (dbt's
    table and view materializations grant it on every adapter that has grants) or any pre- or
    post-hook (a `grant select on {{ this }} ...` hook, or any SQL run on a table of original
    values). dbt applies a project's top-level `models:` configs to every package's models, so a
    project that shares its marts the common way (`models: +grants: {select: [...]}`) would also
    grant deid_input, deid_generalized and deid_suppressed (`<qi>__original`), the pattern and
    hierarchy tables. The working-schema checks (check_working_schema_layout before anything is
    built, working_schema_results at publish) refuse them with this message; the settings are
    read from the graph, so no warehouse grant is needed to find them.

    A `sql_header` (review 8 final, R8) runs before the model's create statement, like a
    pre-hook, and cascades from a project's `models:` the same way: refused too, except the
    package's own (the PostgreSQL release models' work_mem, dbt_deid.postgres_work_mem_header,
    and the planner settings of deid_generalized, deid_suppressed and deid_suppressed_patterns,
    dbt_deid.postgres_hash_joins_header: exactly that text up to whitespace).

    working_model_sharing(nodes): [name with its settings, e.g. 'deid_suppressed (grants,
    post-hook)'], the record-level tables first; [] when none shares.
    working_model_sharing_message(found): the refusal's text, naming them and the fix. -#}
{% macro working_model_sharing(nodes) -%}
  {%- set settings = {} -%}
  {%- for node in nodes -%}
    {%- set found = [] -%}
    {%- set grants = node.config.get('grants') or {} -%}
    {%- if grants is mapping and grants.values() | select | list | length > 0 -%}{%- do found.append('grants') -%}{%- endif -%}
    {%- for hook in ['pre-hook', 'post-hook'] -%}
      {%- if node.config.get(hook) or node.config.get(hook | replace('-', '_')) -%}{%- do found.append(hook) -%}{%- endif -%}
    {%- endfor -%}
    {%- if dbt_deid._foreign_sql_header(node.config.get('sql_header')) -%}{%- do found.append('sql_header') -%}{%- endif -%}
    {%- if found -%}{%- do settings.update({node.name: found}) -%}{%- endif -%}
  {%- endfor -%}
  {%- set out = [] -%}
  {%- for name in dbt_deid._record_level_first(settings.keys() | list) -%}
    {%- do out.append(name ~ ' (' ~ settings[name] | join(', ') ~ ')') -%}
  {%- endfor -%}
  {{ return(out) }}
{%- endmacro %}

{#- Whether a working model's sql_header is not the package's own: true for any text other
    than postgres_hash_joins_header() or postgres_work_mem_header() (whitespace aside), false
    for none or blank. -#}
{% macro _foreign_sql_header(header) -%}
  {%- set text = (header or '') | string -%}
  {%- if text.split() | length == 0 -%}{{ return(false) }}{%- endif -%}
  {%- set own = [] -%}
  {%- for h in [dbt_deid.postgres_hash_joins_header(), dbt_deid.postgres_work_mem_header()] -%}{%- do own.append((h | string).split() | join(' ')) -%}{%- endfor -%}
  {{ return(text.split() | join(' ') not in own) }}
{%- endmacro %}

{% macro working_model_sharing_message(found) -%}
  {{ return(found | length ~ " working model(s) of dbt_deid (some hold original values) have grants, hooks or a sql_header that would share them or run SQL on them: " ~ dbt_deid._first_names(found)
      ~ " (a project-wide `models: +grants`, `+pre-hook`/`+post-hook` or `+sql_header` reaches the package's models too). Grant the published models only,"
      ~ " `models: dbt_deid: publish: +grants: {select: [...]}`, and scope project-wide hooks and grants to your own models (`models: <your project>: ...`); docs/projects.md, \"Where tables go\"") }}
{%- endmacro %}
