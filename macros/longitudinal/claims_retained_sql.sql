{#- The pseudonymized patients or claims (`relation`) without the members flagged in `flagged`
    (deid_claims_stigmatized_members, column member_id; El Emam et al. 2012, "Removal of
    High-Risk Patients and Claims"). NOT EXISTS, not NOT IN: a NULL in the flagged list made
    NOT IN unknown for every row (both tables emptied), and rows without a member id were
    dropped whatever was flagged; here they are removed only when the flagged list holds NULL
    (claims without a member id carried a stigmatized code). Two conditions, not an OR in one
    subquery: engines keep the anti-join. -#}
{% macro claims_retained_sql(cfg, relation, flagged) -%}
  {{ return(dbt_deid.own(adapter.dispatch('claims_retained_sql', 'dbt_deid'))(cfg, relation, flagged)) }}
{%- endmacro %}

{% macro default__claims_retained_sql(cfg, relation, flagged) -%}
  {%- set m = 'r.' ~ dbt_deid.ident(cfg.member_id) -%}
select * from {{ relation }} as r
where not exists (select 1 from {{ flagged }} as s where s.member_id = {{ m }})
  and not ({{ m }} is null and exists (select 1 from {{ flagged }} as s where s.member_id is null))
{%- endmacro %}
