{#- Prec of one released QI: 1 - ((unsuppressed cells x level / height) + suppressed cells) / n. -#}
{% macro _precision_sql(cfg, q, suppressed, hierarchy) -%}
  {%- if hierarchy is none -%}{{ return('cast(null as ' ~ dbt.type_float() ~ ')') }}{%- endif -%}
  {%- set spec = (cfg.qis | selectattr('name', 'equalto', q) | list)[0] -%}
  {%- set d = dbt_deid.type_double() -%}  {#- not 1.0: a decimal literal keeps 6 decimals on Spark -#}
  {%- set sql -%}
  (select cast(1 as {{ d }}) - (cast(count(*) - count({{ dbt_deid.ident(q) }}) as {{ d }}) + cast(count({{ dbt_deid.ident(q) }}) as {{ d }}) * {{ spec.level }} / nullif(max(hh.height), 0)) / count(*)
   from {{ suppressed }} cross join (select max(level) as height from {{ hierarchy }} where qi_name = {{ dbt_deid.literal(q) }}) as hh)
  {%- endset -%}
  {{ return(sql) }}
{%- endmacro %}
