{#- Provider suppression (El Emam et al. 2012, "Suppression of Provider, Vendor, and PCP Identifiers"):
    for each id column, NULL where fewer than min_providers distinct ids share the claim's
    treatment pattern (missing pattern values are one value; counted in the data, which can
    only under-estimate the providers in the whole system: conservative). -#}
{% macro claims_provider_suppression_sql(cfg, relation) -%}
  {{ return(dbt_deid.own(adapter.dispatch('claims_provider_suppression_sql', 'dbt_deid'))(cfg, relation)) }}
{%- endmacro %}

{#- Not dbt_utils.star(except=...): the id columns are replaced in place, so the column order of the input is kept. -#}
{% macro default__claims_provider_suppression_sql(cfg, relation) -%}
  {%- if cfg.provider_ids | length == 0 -%}
    {{ return("select * from " ~ relation) }}
  {%- endif -%}
  {%- set pattern = [] -%}
  {%- for c in cfg.provider_pattern -%}{%- do pattern.append(dbt_deid.ident(c)) -%}{%- endfor -%}
  {%- set names = adapter.get_columns_in_relation(relation) | map(attribute='name') | list if execute else [] -%}
  {%- set exprs = [] -%}
  {%- for c in names -%}
    {%- if c in cfg.provider_ids -%}
      {%- do exprs.append("case when g." ~ dbt_deid.ident('n__' ~ c) ~ " < " ~ cfg.min_providers ~ " then null else t." ~ dbt_deid.ident(c) ~ " end as " ~ dbt_deid.ident(c)) -%}
    {%- else -%}
      {%- do exprs.append("t." ~ dbt_deid.ident(c)) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set counts = [] -%}
  {%- for c in names if c in cfg.provider_ids -%}
    {%- do counts.append("count(distinct " ~ dbt_deid.ident(c) ~ ") as " ~ dbt_deid.ident('n__' ~ c)) -%}
  {%- endfor -%}
with g as (
    select {{ pattern | join(', ') }}, {{ counts | join(', ') if counts | length > 0 else '1 as n__0' }}
    from {{ relation }}
    group by {{ pattern | join(', ') }}
)
select {{ exprs | join(', ') if exprs | length > 0 else '*' }}
from {{ relation }} as t
join g on {% for p in pattern %}t.{{ p }} is not distinct from g.{{ p }}{% if not loop.last %} and {% endif %}{% endfor %}
{%- endmacro %}
