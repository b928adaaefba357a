{#- For the error of a source value missing from a lookup hierarchy: when the hierarchy's column
    names hold missing values (its first row looks like data: an ARX file loaded as a seed, whose
    first line dbt took as the header), a sentence saying so; '' otherwise. -#}
{% macro hierarchy_header_hint(hierarchy, missing_values) -%}
  {%- set rel = dbt_deid._graph_relation(hierarchy) -%}
  {%- if rel is none -%}{{ return('') }}{%- endif -%}
  {%- set names = adapter.get_columns_in_relation(rel) | map(attribute='name') | list -%}
  {%- set hits = [] -%}
  {%- for v in missing_values -%}{%- if (v | string) in names -%}{%- do hits.append(v) -%}{%- endif -%}{%- endfor -%}
  {%- if hits | length == 0 -%}{{ return('') }}{%- endif -%}
  {{ return(". The hierarchy's header row looks like data (" ~ hits | length ~ " missing value(s) are its column names): ARX hierarchy files have no header row, so dbt read the first hierarchy row as column names. Load the file with dbt_deid.arx_hierarchy('" ~ hierarchy ~ "') in a model, or add a header line (level_0;level_1;...); see docs/configuration.md, \"Hierarchy files from ARX\"") }}
{%- endmacro %}
