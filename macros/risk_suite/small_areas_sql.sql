{#- Small geographic areas (El Emam et al. 2010, El Emam et al. 2010). The `areas` relation holds one row per
    area of the geography's base level (its code and census population); the original lookup
    hierarchy of the geography column maps areas to coarser levels. -#}

{#- Inputs of El Emam et al. 2010's models at the released level of the geography and every coarser level
    of its hierarchy: one row per (area_level, area) with the population (sum over its base
    areas), the release's source records in it and MaxCombs (El Emam et al. 2010: the product of the
    numbers of response categories of the other QIs at their released level, largest over the
    combinations that contain the geography; `small_areas.maxcombs` overrides it). The category
    counts come from an inline hierarchy of the non-geographic QIs, so this model does not
    depend on deid_hierarchy (which may read the remedied geography hierarchy). -#}
{% macro small_area_inputs_sql(rcfg) -%}
  {{ return(dbt_deid.own(adapter.dispatch('small_area_inputs_sql', 'dbt_deid'))(rcfg)) }}
{%- endmacro %}

{% macro default__small_area_inputs_sql(rcfg) -%}
  {%- set cfg = rcfg.release -%}
  {%- set sa = rcfg.small_areas -%}
  {%- set s = dbt.type_string() -%}
  {%- set h = ref(sa.hierarchy) -%}
  {%- set areas = ref(sa.areas) -%}
  {%- do dbt_deid.release_source(cfg) -%}
  {%- set src = dbt_deid.release_snapshot() -%}  {#- the whole source, as read once this build (deid_input) -#}
  {%- set hcols = [] -%}
  {%- if dbt_deid.can_inspect(h) and dbt_deid.can_inspect(areas) -%}
    {%- for c in adapter.get_columns_in_relation(h) -%}{%- do hcols.append(dbt_deid.ident(c.name)) -%}{%- endfor -%}
    {%- if hcols | length == 0 -%}
      {{ dbt_deid._config_error('small_areas.hierarchy', "hierarchy '" ~ sa.hierarchy ~ "' of column '" ~ sa.geography_column ~ "' is missing: " ~ h ~ " does not exist in the warehouse (or has no columns); load the seed (dbt seed) or build the model first") }}
    {%- endif -%}
    {%- if hcols | length <= sa.level -%}
      {{ dbt_deid._config_error('small_areas.hierarchy', sa.hierarchy ~ ' has ' ~ (hcols | length - 1) ~ ' levels but ' ~ sa.geography_column ~ ' is released at level ' ~ sa.level) }}
    {%- endif -%}
    {%- set acols = adapter.get_columns_in_relation(areas) | map(attribute='name') | map('lower') | list -%}
    {%- for need in [sa.area_column, sa.population_column] -%}
      {%- if need | lower not in acols -%}
        {{ dbt_deid._config_error('small_areas.areas', sa.areas ~ ' has no column ' ~ need ~ '; it has ' ~ acols | join(', ')) }}
      {%- endif -%}
    {%- endfor -%}
  {%- else -%}
    {%- set hcols = ['c0', 'c1'] -%}
  {%- endif -%}
  {%- set top = hcols | length - 1 -%}
  {#- MaxCombs -#}
  {%- set others = [] -%}{%- set geo_combos = [] -%}
  {%- for b in cfg.verified_combinations -%}
    {%- if sa.geography_column in b -%}{%- do geo_combos.append(b | reject('equalto', sa.geography_column) | list) -%}{%- endif -%}
  {%- endfor -%}
  {%- if geo_combos | length == 0 -%}{%- do geo_combos.append(cfg.qi_names | reject('equalto', sa.geography_column) | list) -%}{%- endif -%}
  {%- set used = [] -%}
  {%- for b in geo_combos -%}{%- for c in b -%}{%- if c not in used -%}{%- do used.append(c) -%}{%- endif -%}{%- endfor -%}{%- endfor -%}
  {%- set other_qis = cfg.qis | selectattr('name', 'in', used) | list -%}
  {#- the release restricted to the other QIs, read from the whole source (no sample) -#}
  {%- set other_cfg = {} -%}{%- do other_cfg.update(cfg) -%}{%- do other_cfg.update({'qis': other_qis, 'sample': none}) -%}
  with areas as (
    select cast({{ dbt_deid.ident(sa.area_column) }} as {{ s }}) as area, {{ dbt_deid.ident(sa.population_column) }} as population
    from {{ areas }}
  ),
  geo as (
    select cast({{ hcols[0] }} as {{ s }}) as base_area
    {%- for lv in range(sa.level, top + 1) %}, cast({{ hcols[lv] }} as {{ s }}) as l{{ lv }}{% endfor %}
    from {{ h }}
  ),
  records as (
    select cast({{ dbt_deid.ident(sa.geography_column) }} as {{ s }}) as base_area, count(*) as records
    from {{ src }} group by 1
  ),
  {%- if sa.maxcombs is not none %}
  maxcombs as (select cast({{ sa.maxcombs }} as {{ dbt.type_bigint() }}) as maxcombs),
  {%- elif other_qis | length == 0 %}
  maxcombs as (select cast(1 as {{ dbt.type_bigint() }}) as maxcombs),
  {%- else %}
  other_hierarchy as (
    {{ dbt_deid.hierarchy_sql(other_cfg) }}
  ),
  categories as (
    select qi_name, count(distinct generalized_value) as n from other_hierarchy
    where {% for q in other_qis %}(qi_name = {{ dbt_deid.literal(q.name) }} and level = {{ q.level }}){% if not loop.last %} or {% endif %}{% endfor %}
    group by qi_name
  ),
  maxcombs as (
    select cast(max(m) as {{ dbt.type_bigint() }}) as maxcombs from (
      {%- for b in geo_combos %}
      select round(exp(sum(ln(n)))) as m from categories where qi_name in ({% for c in b %}{{ dbt_deid.literal(c) }}{% if not loop.last %}, {% endif %}{% endfor %})
      {%- if not loop.last %} union all{% endif %}
      {%- endfor %}
    ) as x
  ),
  {%- endif %}
  by_level as (
    {%- for lv in range(sa.level, top + 1) %}
    select {{ lv }} as area_level, g.l{{ lv }} as area,
      sum(a.population) as population,
      sum(coalesce(r.records, 0)) as records
    from geo as g
    inner join areas as a on a.area = g.base_area
    left join records as r on r.base_area = g.base_area
    group by g.l{{ lv }}
    {%- if not loop.last %}
    union all
    {%- endif %}
    {%- endfor %}
  )
  select b.area_level, b.area, b.population, cast(b.records as {{ dbt.type_bigint() }}) as records,
    m.maxcombs,
    {{ dbt_deid.literal(sa.geography_column) }} as geography_column,
    {{ sa.level }} as released_level,
    {{ sa.threshold }} as threshold,
    (select count(*) from records as r where r.base_area not in (select area from areas)) as source_areas_without_population
  from by_level as b cross join maxcombs as m
{%- endmacro %}

{#- The remedied geography hierarchy (remedy `suppress` or `aggregate`): a copy of the original
    lookup hierarchy in which, for every base area whose area at the released level is flagged,
    the levels from the released one up are replaced by a coarser area: with `aggregate` the
    first level from `coarser_level` up whose area is not flagged (else the top level), with
    `suppress` the top level (e.g. '*'). Point the geography QI's `hierarchy` at this model. -#}
{% macro small_area_hierarchy_sql(rcfg) -%}
  {{ return(dbt_deid.own(adapter.dispatch('small_area_hierarchy_sql', 'dbt_deid'))(rcfg)) }}
{%- endmacro %}

{% macro default__small_area_hierarchy_sql(rcfg) -%}
  {%- set sa = rcfg.small_areas -%}
  {%- set s = dbt.type_string() -%}
  {%- set h = ref(sa.hierarchy) -%}
  {%- set flags = dbt_deid.release_ref('deid_small_areas') -%}
  {%- set hcols = [] -%}
  {%- if dbt_deid.can_inspect(h) -%}
    {%- for c in adapter.get_columns_in_relation(h) -%}{%- do hcols.append(dbt_deid.ident(c.name)) -%}{%- endfor -%}
  {%- else -%}
    {%- set hcols = ['c0', 'c1'] -%}
  {%- endif -%}
  {%- set top = hcols | length - 1 -%}
  {%- set L = sa.level -%}
  {%- if sa.remedy == 'none' or top <= L %}
  select * from {{ h }}
  {%- else %}
  {%- set first = [sa.coarser_level, top] | min -%}
  with flagged as (
    select area_level, area from {{ flags }} where flagged
  ),
  marked as (
    select h.*,
      {%- for lv in range(L, top + 1) %}
      case when f{{ lv }}.area is not null then 1 else 0 end as deid_flag_{{ lv }}__{% if not loop.last %},{% endif %}
      {%- endfor %}
    from {{ h }} as h
    {%- for lv in range(L, top + 1) %}
    left join flagged as f{{ lv }} on f{{ lv }}.area_level = {{ lv }} and f{{ lv }}.area = cast(h.{{ hcols[lv] }} as {{ s }})
    {%- endfor %}
  ),
  targeted as (
    select m.*,
      case when deid_flag_{{ L }}__ = 0 then {{ L }}
      {%- if sa.remedy == 'aggregate' %}
        {%- for lv in range(first, top) %}
        when deid_flag_{{ lv }}__ = 0 then {{ lv }}
        {%- endfor %}
      {%- endif %}
        else {{ top }} end as deid_target__
    from marked as m
  )
  select {{ hcols[0] }}
    {%- for lv in range(1, top + 1) %}
    {%- if lv >= L and lv < top %}
    , case deid_target__ {% for t in range(lv + 1, top + 1) %}when {{ t }} then cast({{ hcols[t] }} as {{ s }}) {% endfor %}else cast({{ hcols[lv] }} as {{ s }}) end as {{ hcols[lv] }}
    {%- else %}
    , {{ hcols[lv] }}
    {%- endif %}
    {%- endfor %}
  from targeted
  {%- endif %}
{%- endmacro %}

{#- Gate (severity error, attach to a released table): fails when records from an area flagged
    by El Emam et al. 2010's model at the release's threshold would be published, i.e. a released (not
    suppressed) geography value is a flagged area at the released or a coarser level. Returns
    counts per level only, never area names. Passes when no small_areas are declared. -#}
{% test deid_small_areas(model) %}
  {{ dbt_deid.own(adapter.dispatch('test_deid_small_areas', 'dbt_deid'))(model) }}
{% endtest %}

{% macro default__test_deid_small_areas(model) %}
  {%- if not dbt_deid.small_areas_enabled() %}
  select 1 as no_small_areas where 1 = 0
  {%- else -%}
  {%- set rcfg = dbt_deid.risk_suite_config() -%}
  {%- set sa = rcfg.small_areas -%}
  select a.area_level, {{ sa.threshold }} as threshold,
    count(distinct a.area) as flagged_areas_published, count(*) as records_from_flagged_areas
  from {{ model }} as m
  inner join {{ dbt_deid.release_ref('deid_small_areas') }} as a
    on a.flagged and a.area = cast(m.{{ dbt_deid.ident(sa.geography_column) }} as {{ dbt.type_string() }})
  group by a.area_level
  {%- endif %}
{% endmacro %}
