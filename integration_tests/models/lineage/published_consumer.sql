{#- A mart downstream of the published table, declared as a consumer (tag deid_consumer) so the
    lineage gate (python -m dbt_deid lineage) checks it. Enabled by var deid_lineage_case:
    'clean' selects the published columns; 'joined' re-attaches a direct identifier by joining
    the raw source back in (what the gate must catch). -#}
{{ config(enabled=var('deid_lineage_case', none) is not none, tags=['deid_consumer']) }}
select p.*{% if var('deid_lineage_case', none) == 'joined' %}, s.health_card_number{% endif %}
from (select *, row_number() over (order by age, gender, province) as rn from {{ ref('deid_published') }}) as p
{%- if var('deid_lineage_case', none) == 'joined' %}
inner join (select health_card_number, row_number() over (order by abstract_id) as rn
            from {{ ref('discharge_abstracts') }}) as s on s.rn = p.rn
{%- endif %}
