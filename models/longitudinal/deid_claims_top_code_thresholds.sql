{{ config(enabled=dbt_deid.claims_release_enabled(), tags=["deid_claims"]) }}
{%- if dbt_deid.claims_release_enabled() -%}
{%- set cfg = dbt_deid.claims_release_config() -%}
{#- El Emam et al. 2012 "Top-Coding": one row per top-coded column with its threshold, the discrete
    percentile (percentile_disc, as the core) of its values after the stigmatized-patient
    removal, and the number of values above it (set to the threshold). -#}
{%- set rows = [] -%}
{%- for t in ['claims', 'patients'] -%}
  {%- for c in cfg.top_code[t] -%}
    {%- set col = dbt_deid.ident(c) -%}
    {%- set rel = ref('dbt_deid', 'deid_claims_retained_' ~ t) -%}
    {%- do rows.append("select " ~ (rows | length + 1) ~ " as step_order, " ~ dbt_deid.literal(t) ~ " as table_name, " ~ dbt_deid.literal(c)
        ~ " as column_name, cast(" ~ cfg.top_code_percentile ~ " as " ~ dbt_deid.type_double() ~ ") as percentile, cast(thr as " ~ dbt_deid.type_double() ~ ") as threshold,"
        ~ " (select count(*) from " ~ rel ~ " where " ~ col ~ " > thr) as values_top_coded"
        ~ " from (select percentile_disc(" ~ (cfg.top_code_percentile / 100) ~ ") within group (order by " ~ col ~ ") as thr from " ~ rel ~ " where " ~ col ~ " is not null) as p") -%}
  {%- endfor -%}
{%- endfor %}
{%- if rows | length > 0 %}
{{ rows | join('\nunion all\n') }}
{%- else %}
select 0 as step_order, cast(null as {{ dbt.type_string() }}) as table_name, cast(null as {{ dbt.type_string() }}) as column_name, cast(null as {{ dbt_deid.type_double() }}) as percentile, cast(null as {{ dbt_deid.type_double() }}) as threshold, cast(0 as bigint) as values_top_coded where 1 = 0
{%- endif %}
{%- endif %}
