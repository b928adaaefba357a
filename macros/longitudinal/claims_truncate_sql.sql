{#- Truncation of claims (El Emam et al. 2012, "Truncation of Claims"): keep each patient's lowest-scoring
    claims up to cap = percentile_disc(truncate_percentile) of claims per patient (claim score =
    sum over claim QIs of -log2(count of the claim's value / claims); missing is a value; ties:
    smaller claim id kept). With truncate_partition (e.g. [year], as the HHP release: its
    ClaimsTruncated flag is per member and year) the claims are counted and truncated per
    patient and partition value, with one cap per partition value. -#}
{% macro claims_truncate_sql(cfg, relation) -%}
  {{ return(dbt_deid.own(adapter.dispatch('claims_truncate_sql', 'dbt_deid'))(cfg, relation)) }}
{%- endmacro %}

{% macro default__claims_truncate_sql(cfg, relation) -%}
  {%- set m = dbt_deid.ident(cfg.member_id) -%}
  {%- set parts = [] -%}
  {%- for c in cfg.truncate_partition -%}{%- do parts.append(dbt_deid.ident(c)) -%}{%- endfor -%}
  {%- set names = adapter.get_columns_in_relation(relation) | map(attribute='name') | list if execute else [] -%}
with per_group as (
    select {% for p in parts %}{{ p }}, {% endfor %}count(*) as n from {{ relation }} group by {% for p in parts %}{{ p }}, {% endfor %}{{ m }}
),
caps as (
    select {% for p in parts %}{{ p }}, {% endfor %}percentile_disc({{ cfg.truncate_percentile / 100 }}) within group (order by n) as cap__
    from per_group{% if parts | length > 0 %} group by {{ parts | join(', ') }}{% endif %}
),
scored as (
    select t.*,
        {%- for q in cfg.claim_qis %}
        -{{ dbt_deid.log2_sql('cast(count(*) over (partition by t.' ~ dbt_deid.ident(q) ~ ') as ' ~ dbt_deid.type_double() ~ ') / count(*) over ()') }}{% if not loop.last %} +{% endif %}
        {%- endfor %} as claim_score__
    from {{ relation }} as t
),
ranked as (
    select scored.*, row_number() over (partition by {{ m }}{% for p in parts %}, {{ p }}{% endfor %} order by claim_score__, {{ dbt_deid.ident(cfg.claim_id) }}) as claim_rank__
    from scored
)
select {% for c in names %}r.{{ dbt_deid.ident(c) }}{% if not loop.last %}, {% endif %}{% endfor %}{{ 'r.*' if names | length == 0 else '' }}
from ranked as r
join caps as c on {% for p in parts %}r.{{ p }} is not distinct from c.{{ p }} and {% endfor %}true
where r.claim_rank__ <= c.cap__
{%- endmacro %}
