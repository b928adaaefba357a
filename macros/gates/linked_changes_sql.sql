{#- The linked check of changed records, in SQL (review 10, B1): the SQL twin of the refresh's
    guard (src/dbt_deid/living/linked.py), run by the gate combined_releases on every version
    of a line, whatever built it (the refresh, OLA, another sample, other levels).

    A record whose true values changed upstream is two records of the combined view (its
    earlier state and its current values: docs/living-release.md, "changed records"). A
    recipient who links two versions (a stable row order, pass-through columns) and knows the
    record's earlier values `a` and current values `b` looks for records present in both whose
    earlier cells are consistent with `a` and whose new cells are consistent with `b`: the
    exact consistent-set count of El Emam et al. 2011 ("Equivalence Classes"; a suppressed
    cell is consistent with anything) on the combination doubled. The guarantee asks that
    count to be at least k for every changed record and verified combination.

    * Earlier: per record and release of `ordered` (the line's release ids, oldest first),
      whether the release holds it, its true values there (coalesce(`<qi>__generalized`,
      `<qi>`), as combined_view_sql reads them) and per QI the cell any stored release revealed
      of that state (same true values and levels), as the refresh's `q__revealed`. A change is
      measured against the record's latest stored state (the latest release holding it).
    * Now: the candidate (the checked release: `<qi>` the cell, `<qi>__generalized` the truth,
      `<source>__original` the original value, original_value_sources).
    * Present in both: records with a stored state and a candidate row (kept and changed).
    * Targets (review 11b, L1; review 12b, H1; review 12 final, L1): every record present in
      both with two states in the line (the stored ones and the candidate's) that differ on a
      QI (it changed in an earlier version, at whatever levels), or changed now (as below). A
      record changed in v2 and kept since is still a target in every later version: a later
      version can delete or change the records that hid it. Two stored states are compared at
      the coarser of their two levels (the store holds each version's true values at its own
      levels only); a stored state and the candidate's at the stored state's level when it is
      the finer (the candidate's original value mapped there through deid_hierarchy: a true
      33 shown 30-39 after a correction from 37 is a change against a stored 37 at ages), else
      at the coarser. States that agree so are one record of the mixed-level combined view.
    * Changed: a QI's true value differs from the stored one; at another level (`hierarchy`
      given: the mixed-level path) compared as for targets (at the stored level when it is the
      finer, else at the coarser), and a value the hierarchy does not map, or a candidate
      without its original values, counts as changed (fail closed).
    * Linked (review 10 final, H1): a record counts for a changed target only if it is
      consistent with the target in every stored release that holds the target (held there
      too, each cell revealed of its state there suppressed or equal to the target's true
      value in that release, at that release's level) and in the candidate; a record absent
      from such a release is not counted (fail closed: the recipient may know the target was
      there). Only the latest stored state would count records an older version rules out.
      As before, for a target changed now, the record's latest state (the cells revealed of
      it) must also fit the target's latest stored state at the same level: a record that
      changed in a release not holding the target is not counted either (fail closed: never
      more than before). A target kept now but changed in an earlier version (review 11b,
      L1) is counted by the every-release rule alone, on each record's own cells in each
      release (what a recipient linking the rows sees; not the cells revealed of its state
      in other releases: a record suppressed in version 2 to hide a change there shows its
      version-1 value in version 1 only, and whether it changed is not known from it). The
      latest-state condition and the merged cells would compare the cells others showed in
      version 1 with the target's version-2 values and count no record in any version after
      a correction.

    A target deleted now is not counted: the releases holding it are all stored and unchanged
    and the candidate, which does not hold it, adds no constraint; its linked set over them was
    counted when the last release holding it was published (it was a target then).

    Rows: (combination, changed records (targets), smallest linked consistent set, changed records below
    k), one per combination of `combinations` (lists of QI names); counts only, never a value.
    `release_levels`: {release_id: {qi: level}}; `current`: {qi: level} of the candidate. -#}
{% macro linked_changes_sql(cfg, truth, key, store, ordered, release_levels, current, combinations, k, hierarchy=none, long_form=none) -%}
  {{ return(dbt_deid.own(adapter.dispatch('linked_changes_sql', 'dbt_deid'))(cfg, truth, key, store, ordered, release_levels, current, combinations, k, hierarchy, long_form)) }}
{%- endmacro %}

{% macro default__linked_changes_sql(cfg, truth, key, store, ordered, release_levels, current, combinations, k, hierarchy=none, long_form=none) -%}
  {%- set qis = cfg.released_qis -%}
  {#- the wide form (3 x Q + 1 columns per stored release: at 8 QIs a widest select list of
      25 x R + 44, PostgreSQL's limit of 1,664 entries at 65 stored versions) while those
      columns are at most 400 (4 QIs: 30 versions, where the two forms cost the same CPU on
      DuckDB; 8 QIs: 16), as the wide form is the cheaper at a few versions; past them the long
      form, whose width does not grow with the stored versions (docs/living-release.md, "The
      linked check's width"). `long_form` true or false forces one (the tests run both). -#}
  {%- set long = ((3 * qis | length + 1) * ordered | length > 400) if long_form is none else long_form -%}
  {%- set I = dbt_deid.ident -%}
  {%- set have = adapter.get_columns_in_relation(store) | map(attribute='name') | map('lower') | list -%}
  {%- set rank = [] -%}
  {%- for i in ordered -%}{%- do rank.append("when " ~ dbt_deid.literal(i) ~ " then " ~ loop.index) -%}{%- endfor -%}
  {#- the QIs stored at a level other than the candidate's in some release (mapped through the
      hierarchy when it is given) -#}
  {%- set other = {} -%}
  {%- for q in qis -%}
    {%- set lv = [] -%}
    {%- for rid in ordered -%}{%- set l = (release_levels.get(rid) or {}).get(q) -%}{%- if l is not none and l | int != current[q] | int and l | int not in lv -%}{%- do lv.append(l | int) -%}{%- endif -%}{%- endfor -%}
    {%- if lv | length > 0 -%}{%- do other.update({q: lv | sort}) -%}{%- endif -%}
  {%- endfor -%}
  {#- per QI at other levels (hierarchy given), the stored levels finer than the candidate's:
      the candidate's value there is its original value (`<source>__original` of the checked
      release, original_value_sources) mapped through the hierarchy (review 12 final, L1); a
      checked release without that column leaves it unknown (a change: fail closed) -#}
  {%- set fine = {} -%}{%- set raw = {} -%}
  {%- if hierarchy is not none -%}
    {%- set truth_have = adapter.get_columns_in_relation(truth) | map(attribute='name') | map('lower') | list -%}
    {%- set sources = dbt_deid.original_value_sources(cfg) -%}
    {%- for q, lvs in other.items() -%}
      {%- set f = lvs | select('lt', current[q] | int) | list -%}
      {%- if f | length > 0 -%}
        {%- do fine.update({q: f}) -%}
        {%- set col = (sources.get(q) or q) ~ '__original' -%}
        {%- if col | lower in truth_have -%}{%- do raw.update({q: col}) -%}{%- endif -%}
      {%- endif -%}
    {%- endfor -%}
  {%- endif -%}
  with deid_stored as (
    select r.record_key
      {%- for q in qis %}
      , case {% for rid in ordered %}when r.release_id = {{ dbt_deid.literal(rid) }} then {{ (release_levels.get(rid) or {}).get(q, -1) | int }} {% endfor %}else -1 end as {{ I(q ~ '__lv') }}
      {%- if q | lower in have and (q ~ '__generalized') | lower in have %}
      , r.{{ I(q) }} as {{ I(q ~ '__cell') }}
      , coalesce(r.{{ I(q ~ '__generalized') }}, r.{{ I(q) }}) as {{ I(q ~ '__was') }}
      {%- else %}
      {#- a store without the QI's columns: no cell, no true value (counted as changed) -#}
      , cast(null as {{ dbt.type_string() }}) as {{ I(q ~ '__cell') }}
      , cast(null as {{ dbt.type_string() }}) as {{ I(q ~ '__was') }}
      {%- endif %}
      {%- endfor %}
      , case r.release_id {{ rank | join(' ') }} else 0 end as deid_rank
    from {{ store }} as r
    where r.release_id in ({% for i in ordered %}{{ dbt_deid.literal(i) }}{{ ', ' if not loop.last }}{% endfor %})
  ),
  {%- if not long %}
  {#- each state of each record (its true values and levels; NULL equal to NULL) with the cells
      any stored release revealed of it and the releases of `ordered` holding it (one GROUP BY
      of the store's rows), then one row per record with, per release, whether it holds the
      record, its true values there and those revealed cells (one GROUP BY of the states; a
      window over the store's rows instead took 1.4 times as long: bench/bench_linked_sql.py) -#}
  deid_states as (
    select record_key
      {%- for q in qis %}, {{ I(q ~ '__lv') }}, {{ I(q ~ '__was') }}, max({{ I(q ~ '__cell') }}) as {{ I(q ~ '__seen') }}{% endfor %}
      {%- for i in range(1, ordered | length + 1) %}, max(case when deid_rank = {{ i }} then 1 else 0 end) as {{ I('deid_in' ~ i) }}{% endfor %}
      {%- for i in range(1, ordered | length + 1) %}{% for q in qis %}, max(case when deid_rank = {{ i }} then {{ I(q ~ '__cell') }} end) as {{ I(q ~ '__c' ~ i) }}{% endfor %}{% endfor %}
      , max(deid_rank) as deid_rank
    from deid_stored
    group by record_key{% for q in qis %}, {{ I(q ~ '__lv') }}, {{ I(q ~ '__was') }}{% endfor %}
  ),
  deid_history as (
    select record_key
      {%- for i in range(1, ordered | length + 1) %}
      , max({{ I('deid_in' ~ i) }}) as {{ I('deid_h' ~ i) }}
      {%- for q in qis %}, max(case when {{ I('deid_in' ~ i) }} = 1 then {{ I(q ~ '__was') }} end) as {{ I(q ~ '__w' ~ i) }}, max(case when {{ I('deid_in' ~ i) }} = 1 then {{ I(q ~ '__seen') }} end) as {{ I(q ~ '__s' ~ i) }}, max({{ I(q ~ '__c' ~ i) }}) as {{ I(q ~ '__c' ~ i) }}{% endfor %}
      {%- endfor %}
      , max(deid_rank) as deid_rank
    from deid_states
    group by record_key
  ),
  {#- each record's latest stored state (the latest release holding it): what a change is
      measured against -#}
  deid_earlier as (
    select h.*
      {%- for q in qis %}
      , case h.deid_rank {% for rid in ordered %}when {{ loop.index }} then {{ (release_levels.get(rid) or {}).get(q, -1) | int }} {% endfor %}else -1 end as {{ I(q ~ '__lv') }}
      , case h.deid_rank {% for rid in ordered %}when {{ loop.index }} then h.{{ I(q ~ '__w' ~ loop.index) }} {% endfor %}end as {{ I(q ~ '__was') }}
      , case h.deid_rank {% for rid in ordered %}when {{ loop.index }} then h.{{ I(q ~ '__s' ~ loop.index) }} {% endfor %}end as {{ I(q ~ '__seen') }}
      {%- endfor %}
    from deid_history as h
  ),
  {%- else %}
  {#- each state of each record (its true values and levels; NULL equal to NULL) with the cells
      any stored release revealed of it and the latest release holding it (one GROUP BY of the
      store's rows). Long form (session 15): nothing per release is a column, so the query's
      width does not grow with the stored versions (PostgreSQL refuses a select list of more
      than 1,664 entries); the per-release detail is `deid_rel`, one row per stored row. -#}
  deid_states as (
    select record_key
      {%- for q in qis %}, {{ I(q ~ '__lv') }}, {{ I(q ~ '__was') }}, max({{ I(q ~ '__cell') }}) as {{ I(q ~ '__seen') }}{% endfor %}
      , max(deid_rank) as deid_rank
    from deid_stored
    group by record_key{% for q in qis %}, {{ I(q ~ '__lv') }}, {{ I(q ~ '__was') }}{% endfor %}
  ),
  {#- each record's latest stored state (the state held by the latest release holding the
      record): what a change is measured against -#}
  deid_earlier as (
    select record_key, deid_rank{% for q in qis %}, {{ I(q ~ '__lv') }}, {{ I(q ~ '__was') }}, {{ I(q ~ '__seen') }}{% endfor %}
    from (
      select st.*, max(st.deid_rank) over (partition by st.record_key) as deid_last
      from deid_states as st
    ) as st
    where deid_rank = deid_last
  ),
  {#- per stored row (record, release): its true values there (`__was`), the cells any stored
      release revealed of the state it holds (`__seen`) and its own cells (`__cell`) -#}
  deid_rel as (
    select s.record_key, s.deid_rank
      {%- for q in qis %}, s.{{ I(q ~ '__was') }}, st.{{ I(q ~ '__seen') }}, s.{{ I(q ~ '__cell') }}{% endfor %}
    from deid_stored as s
    inner join deid_states as st on st.record_key = s.record_key
      {%- for q in qis %}
      and st.{{ I(q ~ '__lv') }} = s.{{ I(q ~ '__lv') }} and (st.{{ I(q ~ '__was') }} = s.{{ I(q ~ '__was') }} or (st.{{ I(q ~ '__was') }} is null and s.{{ I(q ~ '__was') }} is null))
      {%- endfor %}
  ),
  {%- endif %}
  {#- per QI with stored levels finer than the candidate's: the hierarchy from an original
      value to those levels (an original value with two values at one level left unmapped: a
      change, fail closed, and a record is never joined twice) -#}
  {%- for q, lvs in fine.items() if q in raw %}
  {{ I(q ~ '__raw') }} as (
    select h.original_value as v_raw, h.level as lv_to, max(h.generalized_value) as v_to
    from {{ hierarchy }} as h
    where h.qi_name = {{ dbt_deid.literal(q) }} and h.level in ({{ lvs | join(', ') }})
    group by h.original_value, h.level
    having count(distinct h.generalized_value) = 1
  ),
  {%- endfor %}
  {#- the candidate: its cells, its true values at its levels and, per QI stored at a finer
      level, its value at each such level (`<qi>__at<l>`; the missing label at every level) -#}
  deid_now as (
    select {{ dbt_deid.keyed_record_hash_sql('t.' ~ I(cfg.record_id), 'k') }} as record_key
      {%- for q in qis %}, t.{{ I(q) }} as {{ I(q ~ '__now') }}, t.{{ I(q ~ '__generalized') }} as {{ I(q ~ '__is') }}{% endfor %}
      {%- for q, lvs in fine.items() %}{% set qi = qis.index(q) + 1 %}{% for l in lvs %}
      {%- if q in raw %}
      , case when t.{{ I(raw[q]) }} = {{ dbt_deid.literal(cfg.missing_label) }} then {{ dbt_deid.literal(cfg.missing_label) }} else fn{{ qi }}_{{ l }}.v_to end as {{ I(q ~ '__at' ~ l) }}
      {%- else %}
      , cast(null as {{ dbt.type_string() }}) as {{ I(q ~ '__at' ~ l) }}
      {%- endif %}
      {%- endfor %}{% endfor %}
    from {{ truth }} as t
    cross join {{ key }} as k
    {%- for q, lvs in fine.items() if q in raw %}{% set qi = qis.index(q) + 1 %}{% for l in lvs %}
    left join {{ I(q ~ '__raw') }} as fn{{ qi }}_{{ l }}
      on fn{{ qi }}_{{ l }}.v_raw = t.{{ I(raw[q]) }} and fn{{ qi }}_{{ l }}.lv_to = {{ l }}
    {%- endfor %}{% endfor %}
  ),
  {%- if hierarchy is not none %}
  {#- per QI at other levels, the hierarchy between the levels used: (level, value) -> (coarser
      level, value), a value with two parents there left unmapped (changed: fail closed, and a
      record is never joined twice); the missing label is the missing label at every level -#}
  {%- for q, lvs in other.items() %}
  {%- set all = (lvs + [current[q] | int]) | unique | sort | list %}
  {{ I(q ~ '__map') }} as (
    select m.lv_from, m.v_from, m.lv_to, max(m.v_to) as v_to
    from ({{ dbt_deid.level_map_sql(hierarchy, q, all, cfg.missing_label) }}) as m
    where m.lv_to > m.lv_from
    group by m.lv_from, m.v_from, m.lv_to
    having count(distinct m.v_to) = 1
  ),
  {%- endfor %}
  {%- endif %}
  {#- records with two states in the line (the stored ones and the candidate's) that differ on
      a QI compared at the coarser of their two levels (review 12b, H1; equal levels: review 11b,
      L1): per QI and level l used, the states at l or finer mapped up to l through the
      hierarchy, and the candidate's value at l when l is finer than its level (its original
      value mapped: review 12 final, L1), hold two values; so a stored state and the
      candidate's are compared at the stored level when it is the finer. Two states at other levels are one record of the mixed-level
      combined view only when they agree at the coarser level; a record corrected in the
      version that changed a level is a target in every later version. A state value the
      hierarchy does not map up (the missing label maps to itself), with no hierarchy given
      a state at a finer level than another, and a state at a level not known are a change
      (fail closed); a state without a true value (a store without the QI's columns) differs
      from a value (as `is distinct from`). -#}
  {%- set used = {} -%}
  {%- for q in qis -%}{%- do used.update({q: ((other.get(q) or []) + [current[q] | int]) | unique | sort | list}) -%}{%- endfor %}
  {%- if other | length == 0 %}
  {#- every QI stored at the candidate's levels: a stored state other than the latest that
      differs from the candidate differs from the latest too, or the latest does (changed now),
      so two stored states (each a distinct set of true values at these levels, NULL equal to
      NULL) give the targets, as fast as before review 12b (the candidate's rows and the per-QI
      counts below took 1.7 times as long at two stored versions, 1.4 without the candidate's
      rows: bench/bench_linked_sql.py, 100,000 records) -#}
  deid_restated as (
    select record_key
    from deid_states
    group by record_key
    having count(*) > 1
  ),
  {%- else %}
  deid_all_states as (
    select record_key{% for q in qis %}, {{ I(q ~ '__lv') }}, {{ I(q ~ '__was') }}{% endfor %}
      {%- for q, lvs in fine.items() %}{% for l in lvs %}, cast(null as {{ dbt.type_string() }}) as {{ I(q ~ '__at' ~ l) }}{% endfor %}{% endfor %}, 0 as deid_candidate
    from deid_states
    union all
    select record_key{% for q in qis %}, {{ current[q] | int }}, {{ I(q ~ '__is') }}{% endfor %}
      {%- for q, lvs in fine.items() %}{% for l in lvs %}, {{ I(q ~ '__at' ~ l) }}{% endfor %}{% endfor %}, 1
    from deid_now
  ),
  deid_restated as (
    select s.record_key
    from deid_all_states as s
    {%- if hierarchy is not none %}
    {%- for q in qis if q in other %}{% set qi = qis.index(q) + 1 %}
    {%- for l in used[q] if l > used[q][0] %}
    left join {{ I(q ~ '__map') }} as rs{{ qi }}_{{ l }}
      on rs{{ qi }}_{{ l }}.lv_from = s.{{ I(q ~ '__lv') }} and rs{{ qi }}_{{ l }}.v_from = s.{{ I(q ~ '__was') }} and rs{{ qi }}_{{ l }}.lv_to = {{ l }}
    {%- endfor %}
    {%- endfor %}
    {%- endif %}
    group by s.record_key
    having max(case when 1 = 0
      {%- for q in qis %}{% set qi = qis.index(q) + 1 %}
        or s.{{ I(q ~ '__lv') }} not in ({{ used[q] | join(', ') }})
      {%- for l in used[q] if l > used[q][0] %}
        or (s.{{ I(q ~ '__lv') }} < {{ l }}{% if hierarchy is not none %} and s.{{ I(q ~ '__was') }} is not null and rs{{ qi }}_{{ l }}.v_to is null{% endif %})
      {%- endfor %}
      {%- endfor %}
        then 1 else 0 end) = 1
      {%- for q in qis %}{% set qi = qis.index(q) + 1 %}
      {%- for l in used[q] %}
      or count(distinct case when s.{{ I(q ~ '__lv') }} = {{ l }} then s.{{ I(q ~ '__was') }}
        {%- if l > used[q][0] %} when s.{{ I(q ~ '__lv') }} < {{ l }} then {% if hierarchy is not none %}rs{{ qi }}_{{ l }}.v_to{% else %}null{% endif %}{% endif %}
        {%- if l in (fine.get(q) or []) %} when s.deid_candidate = 1 then s.{{ I(q ~ '__at' ~ l) }}{% endif %} end)
        + max(case when s.{{ I(q ~ '__lv') }} <= {{ l }} and s.{{ I(q ~ '__was') }} is null then 1 else 0 end)
        {%- if l in (fine.get(q) or []) %}
        + max(case when s.deid_candidate = 1 and s.{{ I(q ~ '__at' ~ l) }} is null then 1 else 0 end)
        {%- endif %} > 1
      {%- endfor %}
      {%- endfor %}
  ),
  {%- endif %}
  deid_both as (
    select e.*
      {%- for q in qis %}, c.{{ I(q ~ '__now') }}, c.{{ I(q ~ '__is') }}{% endfor %}
      , case when 1 = 0
      {%- for q in qis %}
      {%- set cur = current[q] | int %}
        or (e.{{ I(q ~ '__lv') }} = {{ cur }} and e.{{ I(q ~ '__was') }} is distinct from c.{{ I(q ~ '__is') }})
      {%- if hierarchy is not none and q in other %}
      {%- if not fine.get(q) %}
        or e.{{ I(q ~ '__lv') }} < {{ cur }}
      {%- else %}
        or (e.{{ I(q ~ '__lv') }} < {{ cur }} and (e.{{ I(q ~ '__was') }} is null or (case e.{{ I(q ~ '__lv') }}{% for l in fine[q] %} when {{ l }} then c.{{ I(q ~ '__at' ~ l) }}{% endfor %} end) is null
             or (case e.{{ I(q ~ '__lv') }}{% for l in fine[q] %} when {{ l }} then c.{{ I(q ~ '__at' ~ l) }}{% endfor %} end) <> e.{{ I(q ~ '__was') }}))
      {%- endif %}
        or (e.{{ I(q ~ '__lv') }} > {{ cur }} and e.{{ I(q ~ '__was') }} is distinct from c.{{ I(q ~ '__is') }} and (dn{{ loop.index }}.v_to is null or dn{{ loop.index }}.v_to <> e.{{ I(q ~ '__was') }}))
        or (e.{{ I(q ~ '__lv') }} not in ({{ (other[q] + [cur]) | join(', ') }}))
      {%- else %}
        or e.{{ I(q ~ '__lv') }} <> {{ cur }}
      {%- endif %}
      {%- endfor %}
        then 1 else 0 end as deid_moved
      , case when e.record_key in (select record_key from deid_restated) then 1 else 0 end as deid_restated
    from deid_earlier as e
    inner join deid_now as c on c.record_key = e.record_key
    {%- if hierarchy is not none %}
    {%- for q in qis if q in other %}
    left join {{ I(q ~ '__map') }} as dn{{ qis.index(q) + 1 }}
      on dn{{ qis.index(q) + 1 }}.lv_from = {{ current[q] | int }} and dn{{ qis.index(q) + 1 }}.v_from = c.{{ I(q ~ '__is') }} and dn{{ qis.index(q) + 1 }}.lv_to = e.{{ I(q ~ '__lv') }}
    {%- endfor %}
    {%- endif %}
  )
  {%- if not long %}
  {%- for b in combinations %}
  {%- set t_cols = [I('deid_moved')] -%}{%- set p_cols = [] -%}{%- set on = [] -%}{%- set late = [] -%}
  {%- for i in range(1, ordered | length + 1) -%}
    {%- do t_cols.append(I('deid_h' ~ i)) -%}{%- do p_cols.append(I('deid_h' ~ i)) -%}
    {%- set fit = [] -%}{%- set own = [] -%}
    {%- for q in b -%}
      {%- do t_cols.append(I(q ~ '__w' ~ i)) -%}{%- do p_cols.extend([I(q ~ '__s' ~ i), I(q ~ '__c' ~ i)]) -%}
      {%- do fit.append("(p." ~ I(q ~ '__s' ~ i) ~ " is null or p." ~ I(q ~ '__s' ~ i) ~ " = t." ~ I(q ~ '__w' ~ i) ~ ")") -%}
      {%- do own.append("(p." ~ I(q ~ '__c' ~ i) ~ " is null or p." ~ I(q ~ '__c' ~ i) ~ " = t." ~ I(q ~ '__w' ~ i) ~ ")") -%}
    {%- endfor -%}
    {%- do on.append("(t." ~ I('deid_h' ~ i) ~ " = 0 or (p." ~ I('deid_h' ~ i) ~ " = 1 and ((t." ~ I('deid_moved') ~ " = 1 and " ~ fit | join(' and ') ~ ") or (t." ~ I('deid_moved') ~ " = 0 and " ~ own | join(' and ') ~ "))))") -%}
  {%- endfor -%}
  {%- for q in b -%}
    {%- do t_cols.extend([I(q ~ '__lv'), I(q ~ '__was'), I(q ~ '__is')]) -%}{%- do p_cols.extend([I(q ~ '__lv'), I(q ~ '__seen'), I(q ~ '__now')]) -%}
    {%- do late.append("(p." ~ I(q ~ '__seen') ~ " is null or (p." ~ I(q ~ '__lv') ~ " = t." ~ I(q ~ '__lv') ~ " and p." ~ I(q ~ '__seen') ~ " = t." ~ I(q ~ '__was') ~ "))") -%}
    {%- do on.append("(p." ~ I(q ~ '__now') ~ " is null or p." ~ I(q ~ '__now') ~ " = t." ~ I(q ~ '__is') ~ ")") -%}
  {%- endfor %}
  {%- do on.append("(t." ~ I('deid_moved') ~ " = 0 or (" ~ late | join(' and ') ~ "))") %}
  {{ 'union all' if not loop.first }}
  select {{ dbt_deid.literal(b | join('+')) }} as combination,
    coalesce(sum(x.n), 0) as changed_records,
    min(x.linked) as min_linked,
    coalesce(sum(case when x.linked < {{ k | int }} then x.n else 0 end), 0) as below_k
  from (
    select t.n, coalesce(sum(p.n), 0) as linked
    from (select {{ t_cols | join(', ') }}, count(*) as n from deid_both where deid_moved = 1 or deid_restated = 1 group by {{ t_cols | join(', ') }}) as t
    left join (select {{ p_cols | join(', ') }}, count(*) as n from deid_both group by {{ p_cols | join(', ') }}) as p
      on {{ on | join(' and ') }}
    group by {% for c in t_cols %}t.{{ c }}, {% endfor %}t.n
  ) as x
  {%- endfor %}
  {%- else %}
  {#- per combination: the records present in both grouped as the wide form grouped them (on
      the releases holding them and, per release, the values the check compares), without a
      column per release: a record whose stored rows are "uniform" (held by a run of
      consecutive releases, the same value of each compared column in every one of them, as a
      kept record's cells are night after night) is keyed by its first and last release and
      those values; any other record is a group of its own (keyed by its record key). Records
      of one key have the same detail; a group's detail is its representative's rows
      (`deid_rel`). A record counts for a target if it fits the target on the candidate's cells
      (and, for a target changed now, its latest state's revealed cells), and in every stored
      release holding the target it is held too and fits there (changed now: the cells revealed
      of its state there; kept: its own cells): the pairs of groups that fit without the
      releases, then per pair the releases that fit, counted against the target's (one stored
      row per record and release: the store's key; releases are counted distinct all the same,
      so a row stored twice is not a second release, and a record with a row twice is a group
      of its own: review 15, M1). -#}
  {%- for b in combinations %}{% set j = loop.index %}
  {%- set cols = [] %}{% for q in b %}{% for c in ['__was', '__seen', '__cell'] %}{% do cols.append(q ~ c) %}{% endfor %}{% endfor %}
  , {{ I('deid_runs' ~ j) }} as (
    select r.record_key, count(distinct r.deid_rank) as deid_nrel, count(*) as deid_rows, min(r.deid_rank) as deid_first, max(r.deid_rank) as deid_last
      {%- for c in cols %}, min(r.{{ I(c) }}) as {{ I(c ~ '_lo') }}, max(r.{{ I(c) }}) as {{ I(c ~ '_hi') }}, count(r.{{ I(c) }}) as {{ I(c ~ '_n') }}{% endfor %}
    from deid_rel as r
    where r.record_key in (select record_key from deid_both)
    group by r.record_key
  ),
  {{ I('deid_sig' ~ j) }} as (
    select record_key, deid_nrel, deid_first, deid_last
      , case when deid_last - deid_first + 1 = deid_nrel and deid_rows = deid_nrel
      {%- for c in cols %} and ({{ I(c ~ '_n') }} = 0 or ({{ I(c ~ '_n') }} = deid_nrel and {{ I(c ~ '_lo') }} = {{ I(c ~ '_hi') }})){% endfor %}
        then null else record_key end as deid_own
      {%- for c in cols %}, {{ I(c ~ '_lo') }}{% endfor %}
    from {{ I('deid_runs' ~ j) }}
  ),
  {{ I('deid_t' ~ j) }} as (
    select min(x.record_key) as deid_rep, max(g.deid_nrel) as deid_nrel, x.deid_moved
      {%- for q in b %}, x.{{ I(q ~ '__lv') }}, x.{{ I(q ~ '__was') }}, x.{{ I(q ~ '__is') }}{% endfor %}, count(*) as n
    from deid_both as x
    inner join {{ I('deid_sig' ~ j) }} as g on g.record_key = x.record_key
    where x.deid_moved = 1 or x.deid_restated = 1
    group by g.deid_own, g.deid_first, g.deid_last{% for c in cols %}, g.{{ I(c ~ '_lo') }}{% endfor %}, x.deid_moved{% for q in b %}, x.{{ I(q ~ '__lv') }}, x.{{ I(q ~ '__was') }}, x.{{ I(q ~ '__is') }}{% endfor %}
  ),
  {{ I('deid_p' ~ j) }} as (
    select min(x.record_key) as deid_rep
      {%- for q in b %}, x.{{ I(q ~ '__lv') }}, x.{{ I(q ~ '__seen') }}, x.{{ I(q ~ '__now') }}{% endfor %}, count(*) as n
    from deid_both as x
    inner join {{ I('deid_sig' ~ j) }} as g on g.record_key = x.record_key
    group by g.deid_own, g.deid_first, g.deid_last{% for c in cols %}, g.{{ I(c ~ '_lo') }}{% endfor %}{% for q in b %}, x.{{ I(q ~ '__lv') }}, x.{{ I(q ~ '__seen') }}, x.{{ I(q ~ '__now') }}{% endfor %}
  ),
  {{ I('deid_fit' ~ j) }} as (
    select t.deid_rep as t_rep, t.deid_nrel, t.deid_moved, p.deid_rep as p_rep, p.n
    from {{ I('deid_t' ~ j) }} as t
    inner join {{ I('deid_p' ~ j) }} as p
      on {% for q in b %}(p.{{ I(q ~ '__now') }} is null or p.{{ I(q ~ '__now') }} = t.{{ I(q ~ '__is') }}) and {% endfor %}(t.deid_moved = 0 or ({% for q in b %}(p.{{ I(q ~ '__seen') }} is null or (p.{{ I(q ~ '__lv') }} = t.{{ I(q ~ '__lv') }} and p.{{ I(q ~ '__seen') }} = t.{{ I(q ~ '__was') }})){{ ' and ' if not loop.last }}{% endfor %}))
  ),
  {{ I('deid_linked' ~ j) }} as (
    select f.t_rep, f.p_rep, f.n
    from {{ I('deid_fit' ~ j) }} as f
    inner join deid_rel as tr on tr.record_key = f.t_rep
    inner join deid_rel as pr on pr.record_key = f.p_rep and pr.deid_rank = tr.deid_rank
    where (f.deid_moved = 1{% for q in b %} and (pr.{{ I(q ~ '__seen') }} is null or pr.{{ I(q ~ '__seen') }} = tr.{{ I(q ~ '__was') }}){% endfor %})
       or (f.deid_moved = 0{% for q in b %} and (pr.{{ I(q ~ '__cell') }} is null or pr.{{ I(q ~ '__cell') }} = tr.{{ I(q ~ '__was') }}){% endfor %})
    group by f.t_rep, f.p_rep, f.n, f.deid_nrel
    having count(distinct tr.deid_rank) = f.deid_nrel
  )
  {%- endfor %}
  {%- for b in combinations %}{% set j = loop.index %}
  {{ 'union all' if not loop.first }}
  select {{ dbt_deid.literal(b | join('+')) }} as combination,
    coalesce(sum(x.n), 0) as changed_records,
    min(x.linked) as min_linked,
    coalesce(sum(case when x.linked < {{ k | int }} then x.n else 0 end), 0) as below_k
  from (
    select t.n, coalesce(sum(m.n), 0) as linked
    from {{ I('deid_t' ~ j) }} as t
    left join {{ I('deid_linked' ~ j) }} as m on m.t_rep = t.deid_rep
    group by t.deid_rep, t.n
  ) as x
  {%- endfor %}
  {%- endif %}
{%- endmacro %}

{#- The gate combined_releases' use of linked_changes_sql: runs it and returns
    {changed, smallest, parts} (parts: one message per combination with changed records below
    k: counts and the combination's name only). -#}
{% macro linked_changes_problems(cfg, truth, key, store, ordered, release_levels, current, combinations, k, hierarchy=none) -%}
  {%- set rows = run_query(dbt_deid.linked_changes_sql(cfg, truth, key, store, ordered, release_levels, current, combinations, k, hierarchy)).rows -%}
  {%- set parts = [] -%}{%- set mins = [] -%}{%- set changed = [0] -%}
  {%- for r in rows -%}
    {%- if (r[1] or 0) | int > changed[0] -%}{%- do changed.pop() -%}{%- do changed.append((r[1] or 0) | int) -%}{%- endif -%}
    {%- if r[2] is not none -%}{%- do mins.append(r[2] | int) -%}{%- endif -%}
    {%- if (r[3] or 0) | int > 0 -%}
      {%- do parts.append(r[0] ~ ": " ~ r[3] | int ~ " of " ~ r[1] | int ~ " changed record(s) consistent with fewer than k = " ~ k ~ " records linked across versions (smallest " ~ r[2] | int ~ ")") -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return({'changed': changed[0], 'smallest': mins | min if mins else none, 'parts': parts}) }}
{%- endmacro %}

{#- The refusal's tail: what a linked change means and what to do. -#}
{% macro linked_changes_advice() -%}
  {{ return("a recipient who links two versions (a stable row order, pass-through columns) and knows a changed record's earlier and current values finds it among fewer than k records (the linked check of docs/living-release.md, 'changed records'); build the version as a refresh of the line at its fixed levels (the refresh suppresses cells of other records in the new version so that k of them fit each change; an OLA search, another sample or other levels are never built as a refresh), or correct fewer records per version, or start the line over explicitly with the setting `restart: {reason: '...'}` (audited: written into the history)") }}
{%- endmacro %}
