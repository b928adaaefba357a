{#- The combined view of releases of one source at different levels (issue 32, item 2).

    Per record (state) and QI, the finest cell any release revealed, with its level: the
    hierarchies nest (El Emam et al. 2009, "A Globally Optimal k-Anonymity Method for the
    De-Identification of Health Data", the generalization lattice), so a cell at level l and a
    cell at a coarser level holding it reveal exactly the finer one (their intersection). The
    exact check then counts consistency cell by cell at each cell's level
    (exact_consistent_levels_sql), so every record carries its true value at every level of its
    QI that any combined release used: `<qi>__at_<l>`, mapped up from the finest true value the
    record has in any release through the hierarchy (deid_hierarchy: every level of every
    original value). A true value at a level finer than any release holding the record is not
    known: NULL, equal to no cell (the record is counted consistent with fewer rows: fail
    closed).

    Columns: `<qi>` (the finest revealed cell, NULL when suppressed everywhere), `<qi>__level`
    (its level, NULL when suppressed), `<qi>__at_<l>` for l in `levels[qi]`, and
    `deid_conflict` (1 when a state's rows, each mapped up to every level of its QI used, give
    two different true values at any level: a value that changed inside one group of the
    coarsest level, wherever the releases' levels see it; the gate refuses) and `deid_unlisted`
    (1 when a state holds a stored row of a release not in `release_levels`: its level is
    unknown and is never taken to be the candidate's; the gate refuses), `deid_unreleased` (1
    when a state holds a row of a release that did not release one of the QIs: its true value
    there is NULL, the record would split into states counting each other; the gate refuses)
    and `deid_unmapped` (1 when a state holds a true value, neither NULL nor the missing label,
    that deid_hierarchy does not map to a coarser level used: a stored value gone from today's
    hierarchy; the gate refuses) and `deid_changed_any` (1 for the states of a record with
    several: its true values changed between versions; counted by person, each record once
    with every cell any version revealed, only at equal levels (combined_persons_sql): the
    gate refuses them at mixed levels, review 19, F1). No record id or key. The hierarchies must nest (one parent
    per value and level): combined_levels_nesting_sql, refused by the gate before this view.

    `release_levels`: {release_id: {qi: level}} of the earlier releases (the gate passes every
    release the store holds for the line); `levels`: {qi: sorted levels}; the candidate is at
    `current` ({qi: level}). The tests' reference is tests/combined_view_check.py
    (mixed_level_view; tests/unit/test_combined_levels_sql.py). -#}
{% macro combined_levels_view_sql(cfg, truth, key, store, hierarchy, release_levels, current, levels) -%}
  {{ return(dbt_deid.own(adapter.dispatch('combined_levels_view_sql', 'dbt_deid'))(cfg, truth, key, store, hierarchy, release_levels, current, levels)) }}
{%- endmacro %}

{% macro default__combined_levels_view_sql(cfg, truth, key, store, hierarchy, release_levels, current, levels) -%}
  {%- set qis = cfg.released_qis -%}
  {%- set have = adapter.get_columns_in_relation(store) | map(attribute='name') | map('lower') | list -%}
  {%- set s = dbt.type_string() -%}
  {%- set miss = dbt_deid.literal(cfg.missing_label) -%}
  {%- set I = dbt_deid.ident -%}
  with deid_rows as (
    select {{ dbt_deid.keyed_record_hash_sql('t.' ~ I(cfg.record_id), 'k') }} as record_key
      {%- for q in qis %}, {{ current[q] }} as {{ I(q ~ '__lv') }}, t.{{ I(q) }} as {{ I(q ~ '__cell') }}, t.{{ I(q ~ '__generalized') }} as {{ I(q ~ '__true') }}{% endfor %}
    from {{ truth }} as t
    cross join {{ key }} as k
    union all
    select r.record_key
      {%- for q in qis %}
      {%- if q | lower in have and (q ~ '__generalized') | lower in have %}
      , case when 1 = 0 then 0{% for rid, lv in release_levels.items() %} when r.release_id = {{ dbt_deid.literal(rid) }} then {{ lv.get(q, current[q]) }}{% endfor %} end
      , r.{{ I(q) }}, coalesce(r.{{ I(q ~ '__generalized') }}, r.{{ I(q) }})
      {%- else %}, {{ current[q] }}, cast(null as {{ s }}), cast(null as {{ s }}){% endif %}
      {%- endfor %}
    from {{ store }} as r
    where {{ dbt_deid.line_rows_condition(cfg, 'r') }}
  ),
  {#- per QI, the hierarchy between its levels: (level, value) -> (coarser level, value); the
      missing label is the missing label at every level -#}
  {%- for q in qis %}
  {%- set lv = levels[q] %}
  {{ I(q ~ '__map') }} as (
{{ dbt_deid.level_map_sql(hierarchy, q, lv, cfg.missing_label) }}
  ),
  {%- endfor %}
  {#- each row's true value at every level of its QI at or above the row's level
      (`<qi>__up_<l>`); rows of one record agreeing at the coarsest level are one state (a
      record whose coarsest values changed is a state per value, as at equal levels), and a
      state whose rows give two values at any level is a conflict (a value changed inside one
      coarsest group, seen at whichever level: issue 32) -#}
  deid_topped as (
    select r.*
      {%- for q in qis %}{% set qi = loop.index %}
      {%- for l in levels[q] %}, case when r.{{ I(q ~ '__lv') }} = {{ l }} then r.{{ I(q ~ '__true') }} else u{{ qi }}_{{ l }}.v_to end as {{ I(q ~ '__up_' ~ l) }}{% endfor %}
      , coalesce(case when r.{{ I(q ~ '__lv') }} = {{ levels[q] | max }} then r.{{ I(q ~ '__true') }} else u{{ qi }}_{{ levels[q] | max }}.v_to end, r.{{ I(q ~ '__true') }}) as {{ I(q ~ '__top') }}
      {%- endfor %}
      {#- a row of a release that did not release a QI (its true value NULL: no top, the record
          split in two states counting each other), and a true value the hierarchy does not
          map to a coarser level used (a stored value gone from today's deid_hierarchy: the
          raw value as top, the same split, unseen by count(distinct)): the gate refuses -#}
      , case when {% for q in qis %}(r.{{ I(q ~ '__lv') }} is not null and r.{{ I(q ~ '__true') }} is null){{ ' or ' if not loop.last }}{% endfor %} then 1 else 0 end as deid_unreleased_row
      , case when {% for q in qis %}{% set qi = loop.index %}(r.{{ I(q ~ '__true') }} is not null and r.{{ I(q ~ '__true') }} <> {{ miss }} and (1 = 0{% for l in levels[q] %} or (r.{{ I(q ~ '__lv') }} < {{ l }} and u{{ qi }}_{{ l }}.v_to is null){% endfor %})){{ ' or ' if not loop.last }}{% endfor %} then 1 else 0 end as deid_unmapped_row
    from deid_rows as r
    {%- for q in qis %}{% set qi = loop.index %}
    {%- for l in levels[q] %}
    left join {{ I(q ~ '__map') }} as u{{ qi }}_{{ l }}
      on u{{ qi }}_{{ l }}.lv_from = r.{{ I(q ~ '__lv') }} and u{{ qi }}_{{ l }}.v_from = r.{{ I(q ~ '__true') }} and u{{ qi }}_{{ l }}.lv_to = {{ l }}
    {%- endfor %}
    {%- endfor %}
  ),
  deid_ranked as (
    select t.*
      {%- for q in qis %}
      , min({{ I(q ~ '__lv') }}) over (partition by record_key{% for p in qis %}, {{ I(p ~ '__top') }}{% endfor %}) as {{ I(q ~ '__finest') }}
      , min(case when {{ I(q ~ '__cell') }} is not null then {{ I(q ~ '__lv') }} end) over (partition by record_key{% for p in qis %}, {{ I(p ~ '__top') }}{% endfor %}) as {{ I(q ~ '__level') }}
      {%- endfor %}
    from deid_topped as t
  ),
  deid_states as (
    select record_key
      {%- for q in qis %}
      , min({{ I(q ~ '__level') }}) as {{ I(q ~ '__level') }}
      , max(case when {{ I(q ~ '__lv') }} = {{ I(q ~ '__level') }} then {{ I(q ~ '__cell') }} end) as {{ I(q) }}
      , min({{ I(q ~ '__finest') }}) as {{ I(q ~ '__finest') }}
      , max(case when {{ I(q ~ '__lv') }} = {{ I(q ~ '__finest') }} then {{ I(q ~ '__true') }} end) as {{ I(q ~ '__true') }}
      {%- for l in levels[q] %}
      , count(distinct {{ I(q ~ '__up_' ~ l) }}) as {{ I(q ~ '__trues_' ~ l) }}
      {%- endfor %}
      , count(distinct case when {{ I(q ~ '__lv') }} = {{ I(q ~ '__level') }} then {{ I(q ~ '__cell') }} end) as {{ I(q ~ '__cells') }}
      {%- endfor %}
      , max(case when {% for q in qis %}{{ I(q ~ '__lv') }} is null{{ ' or ' if not loop.last }}{% endfor %} then 1 else 0 end) as deid_unlisted
      , max(deid_unreleased_row) as deid_unreleased
      , max(deid_unmapped_row) as deid_unmapped
    from deid_ranked
    group by record_key{% for q in qis %}, {{ I(q ~ '__top') }}{% endfor %}
  )
  select
    {%- for q in qis %}
    s.{{ I(q) }}, s.{{ I(q ~ '__level') }},
    {%- set qi = loop.index %}
    {%- for l in levels[q] %}
    case when s.{{ I(q ~ '__finest') }} = {{ l }} then s.{{ I(q ~ '__true') }} else a{{ qi }}_{{ l }}.v_to end as {{ I(q ~ '__at_' ~ l) }},
    {%- endfor %}
    {%- endfor %}
    case when {% for q in qis %}{% for l in levels[q] %}s.{{ I(q ~ '__trues_' ~ l) }} > 1 or {% endfor %}s.{{ I(q ~ '__cells') }} > 1{{ ' or ' if not loop.last }}{% endfor %} then 1 else 0 end as deid_conflict,
    s.deid_unlisted,
    s.deid_unreleased,
    s.deid_unmapped,
    case when s.record_key is not null and count(*) over (partition by s.record_key) > 1 then 1 else 0 end as deid_changed_any
  from deid_states as s
  {%- for q in qis %}
  {%- set qi = loop.index %}
  {%- for l in levels[q] %}
  left join {{ I(q ~ '__map') }} as a{{ qi }}_{{ l }}
    on a{{ qi }}_{{ l }}.lv_from = s.{{ I(q ~ '__finest') }} and a{{ qi }}_{{ l }}.v_from = s.{{ I(q ~ '__true') }} and a{{ qi }}_{{ l }}.lv_to = {{ l }}
  {%- endfor %}
  {%- endfor %}
{%- endmacro %}


{#- The QIs whose hierarchy between the levels used does not nest: a value at one level with
    two different values at a coarser level used (deid_hierarchy rows of two original values).
    Rows (qi_name, number of such (level, value, coarser level)), never a value; the gate
    combined_releases refuses any, before the combined view is read (its joins would multiply
    a record's states). -#}
{% macro combined_levels_nesting_sql(hierarchy, qis, levels) -%}
  {{ return(dbt_deid.own(adapter.dispatch('combined_levels_nesting_sql', 'dbt_deid'))(hierarchy, qis, levels)) }}
{%- endmacro %}

{% macro default__combined_levels_nesting_sql(hierarchy, qis, levels) -%}
  select x.qi_name, count(*) as parents_split
  from (
    select a.qi_name
    from {{ hierarchy }} as a
    inner join {{ hierarchy }} as b on b.qi_name = a.qi_name and b.original_value = a.original_value
    where 1 = 0{% for q in qis if levels[q] | length > 1 %} or (a.qi_name = {{ dbt_deid.literal(q) }} and a.level in ({{ levels[q] | join(', ') }}) and b.level in ({{ levels[q] | join(', ') }}) and b.level > a.level){% endfor %}
    group by a.qi_name, a.level, a.generalized_value, b.level
    having count(distinct b.generalized_value) > 1
  ) as x
  group by x.qi_name
  order by x.qi_name
{%- endmacro %}
