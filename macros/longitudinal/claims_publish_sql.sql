{#- The published columns of a table: the pseudonymized ids (the member id first), the
    quasi-identifiers (generalized) and release_columns. Claims keep the provider ids as
    suppressed. -#}
{% macro claims_publish_sql(cfg, table, relation) -%}
  {{ return(dbt_deid.own(adapter.dispatch('claims_publish_sql', 'dbt_deid'))(cfg, table, relation)) }}
{%- endmacro %}

{% macro default__claims_publish_sql(cfg, table, relation) -%}
  {%- set qis = cfg.demographic_qis if table == 'patients' else cfg.claim_qis -%}
  {%- set cols = [cfg.member_id] -%}
  {%- for c in cfg.pseudonymize[table] + qis + cfg.release_columns[table] if c not in cols -%}
    {%- do cols.append(c) -%}
  {%- endfor -%}
select {% for c in cols %}{{ dbt_deid.ident(c) }}{% if not loop.last %}, {% endif %}{% endfor %}
from {{ relation }}
{%- endmacro %}
