{#- The combined view by person (review 19, F1): one row per record of the line, not per state.

    Recipients keep every version and can link a record's rows across versions (a
    pass-through column, the row order, a stable published row): a record is consistent with
    a target only when every cell any version revealed of it is, so each record counts once,
    with the union of its cells (El Emam et al. 2011's consistency, cell by cell, over
    everything a recipient holds; the brief: "per record, every cell any release revealed").
    Counting a changed record's states as separate records (the rule before session 19)
    let an unchanged record hidden in version 1 by records corrected in version 2 be
    consistent with fewer than k records, the gate saying more.

    `combined`: the combined view at equal levels (combined_view_sql or line_states_sql:
    `record_key`, `<qi>` the cell revealed by any release holding the state, `<qi>__generalized`
    its true value, `deid_changed_any` 1 for the states of a record with several). Output, per
    released QI of `qis`: `<qi>` and `<qi>__generalized`, plus `deid_target` and
    `deid_conflicts`:

    * a record of one state (and every state of a record without a key, each its own record as
      before): its row, a target (`deid_target` 1);
    * a record of several states (its true values changed between versions): one row, each
      cell the one value its states revealed (NULL when none did), or `marker` when they
      revealed two different values (a cell that matches no true value: the record is
      consistent with no target on that QI; `deid_conflicts` 1). It is a released record
      only (`deid_target` 0): as a target it is the linked check's (linked_changes_sql),
      which compares each of its versions with its true values there.

    The gate refuses when a target's true value is `marker` (it would match the conflicting
    cells). No record key in the output. -#}
{% macro combined_persons_sql(combined, qis, marker) -%}
  {{ return(dbt_deid.own(adapter.dispatch('combined_persons_sql', 'dbt_deid'))(combined, qis, marker)) }}
{%- endmacro %}

{% macro default__combined_persons_sql(combined, qis, marker) -%}
  {%- set I = dbt_deid.ident -%}
  {%- set m = dbt_deid.literal(marker) -%}
  select {% for q in qis %}c.{{ I(q) }}, c.{{ I(q ~ '__generalized') }}, {% endfor %}1 as deid_target, 0 as deid_conflicts
  from {{ combined }} as c
  where c.deid_changed_any = 0 or c.record_key is null
  union all
  select
    {%- for q in qis %}
    case when count(distinct c.{{ I(q) }}) > 1 then {{ m }} else max(c.{{ I(q) }}) end as {{ I(q) }},
    max(c.{{ I(q ~ '__generalized') }}) as {{ I(q ~ '__generalized') }},
    {%- endfor %}
    0 as deid_target,
    case when {% for q in qis %}count(distinct c.{{ I(q) }}) > 1{{ ' or ' if not loop.last }}{% endfor %} then 1 else 0 end as deid_conflicts
  from {{ combined }} as c
  where c.deid_changed_any = 1 and c.record_key is not null
  group by c.record_key
{%- endmacro %}

{#- The cell written for a record whose versions revealed two different values of a QI (see
    combined_persons_sql): a text no hierarchy or rule produces, and the gate refuses a
    target whose true value is it. -#}
{% macro combined_conflict_marker() -%}
  {{ return('dbt_deid: two values revealed') }}
{%- endmacro %}
