{#- Rule-based generalization levels (El Emam et al. 2011 Table 2): numeric intervals with top/bottom
    coding, string prefixes, date truncation. Each returns a SQL expression of type string
    (NULL for a NULL input) for `value_sql` at level `level` (0 = the original value). -#}
{% macro rule_level_sql(rule, level, value_sql) -%}
  {{ return(dbt_deid.own(adapter.dispatch('rule_level_sql', 'dbt_deid'))(rule, level, value_sql)) }}
{%- endmacro %}

{% macro default__rule_level_sql(rule, level, value_sql) -%}
  {%- if level == 0 -%}
    {{ return('cast(' ~ value_sql ~ ' as ' ~ dbt.type_string() ~ ')') }}
  {%- endif -%}
  {%- set spec = rule['levels'][level - 1] -%}
  {%- if rule.type == 'interval' -%}
    {{ return(dbt_deid.interval_sql(spec, value_sql)) }}
  {%- elif rule.type == 'prefix' -%}
    {{ return(dbt_deid.prefix_sql(spec.length, value_sql)) }}
  {%- else -%}
    {{ return(dbt_deid.date_trunc_sql(spec.trunc, value_sql)) }}
  {%- endif -%}
{%- endmacro %}
