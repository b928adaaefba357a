{#- The schema of `relation`, created only when it does not exist. `adapter.create_schema`
    commits the open transaction: inside the publish materialization (one transaction: the
    candidate, the gates, the swap, the history row, the store rows) that would commit the swap
    before the history and store rows, and an error after it would leave the table published
    with no audit row (review of session 5). Inside a publish the schema always exists (the
    candidate and deid_suppressed are in it), so nothing is committed there. -#}
{% macro create_schema_if_missing(relation) -%}
  {%- if not adapter.check_schema_exists(relation.database, relation.schema) -%}
    {%- do adapter.create_schema(api.Relation.create(database=relation.database, schema=relation.schema)) -%}
  {%- endif -%}
{%- endmacro %}
