{#- A release that lives (issue 32): a build of a release line with published versions is a
    refresh. Like an incremental model reads `this`, the refresh reads the per-record store
    (deid_release_records: per record key and version, the true value at the line's levels and
    the published cell) and the current generalized records; no earlier published table.

    * refresh_line(cfg): the line's store, key and previous version, or none (no published
      version in the store: version 1 is seed 000's algorithm on the pattern table).
    * refresh_records_sql(cfg, generalized, line): the current records, each with its pair
      columns `<qi>__earlier`, `<qi>__published`, `<qi>__revealed` (dbt_deid.living.pairs).
    * refresh_pairs_sql(cfg, generalized, line): the pairs the Python core reads: the current
      records grouped by (current, earlier, published, revealed) tuples, plus the rows of every
      state no longer current (deleted records, earlier states of changed ones), which stay in
      the combined view. One full outer join and one GROUP BY (docs/living-release.md).
    * current_patterns(cfg, patterns): deid_patterns as its readers expect it (the current
      records' QI tuples with counts), whether or not it holds the pairs.
    No value of a record is written anywhere new: the pairs sit in the working schema, as
    deid_patterns does. -#}

{#- The store and key of the line (relations in the working schema, found in the graph: a ref
    to deid_release_gate would be a cycle) and its previous version, or none when the store
    holds no version of the line. Only at run time (none when parsing, under --empty, and for
    releases whose QIs are not all released, or that OLA's record suppression makes). -#}
{% macro refresh_line(cfg) -%}
  {%- if not execute or flags.EMPTY or dbt_deid.ola_enabled() -%}{{ return(none) }}{%- endif -%}
  {%- set gate = dbt_deid._graph_relation(dbt_deid.release_node_name('deid_release_gate')) -%}
  {%- if gate is none -%}{{ return(none) }}{%- endif -%}
  {%- set store = dbt_deid.release_records_relation(gate) -%}
  {%- set key = dbt_deid.history_key_relation(gate) -%}
  {%- if adapter.get_relation(store.database, store.schema, store.identifier) is none
        or adapter.get_relation(key.database, key.schema, key.identifier) is none -%}
    {{ return(none) }}
  {%- endif -%}
  {%- set have = adapter.get_columns_in_relation(store) | map(attribute='name') | map('lower') | list -%}
  {%- for q in cfg.qi_names -%}
    {%- if q | lower not in have or (q ~ '__generalized') | lower not in have -%}{{ return(none) }}{%- endif -%}
  {%- endfor -%}
  {%- set previous = run_query("select max(release_version) from " ~ store ~ " where release_name = " ~ dbt_deid.literal(cfg.name)).rows[0][0] -%}
  {%- if previous is none -%}{{ return(none) }}{%- endif -%}
  {{ return({'store': store, 'key': key, 'previous': previous | int}) }}
{%- endmacro %}

{#- The column lists of the pairs: the QIs, then their earlier, published, revealed columns
    (dbt_deid.living.pairs.pair_columns). -#}
{% macro refresh_pair_columns(cfg) -%}
  {%- set out = [] -%}
  {%- for q in cfg.qi_names -%}{%- do out.append(q) -%}{%- endfor -%}
  {%- for s in ['__earlier', '__published', '__revealed'] -%}
    {%- for q in cfg.qi_names -%}{%- do out.append(q ~ s) -%}{%- endfor -%}
  {%- endfor -%}
  {{ return(out) }}
{%- endmacro %}

{#- The store's record states of the line (CTEs `deid_states` and `deid_earlier`): per record
    key and true tuple, the finest cell any version revealed, the latest version holding the
    state (`deid_state_rank` = 1: the record's latest state), and the cell of the previous
    version when that version holds the state (else the revealed cell). -#}
{% macro _refresh_states_ctes(cfg, line) -%}
  {%- set qis = cfg.qi_names -%}
  deid_store as (
    select record_key, release_version
      {%- for q in qis %}, {{ dbt_deid.ident(q) }} as {{ dbt_deid.ident(q ~ '__cell') }}, coalesce({{ dbt_deid.ident(q ~ '__generalized') }}, {{ dbt_deid.ident(q) }}) as {{ dbt_deid.ident(q ~ '__true') }}{% endfor %}
    from {{ line.store }}
    where release_name = {{ dbt_deid.literal(cfg.name) }}
  ),
  deid_states_grouped as (
    select record_key
      {%- for q in qis %}, {{ dbt_deid.ident(q ~ '__true') }}{% endfor %},
      max(release_version) as deid_last_version
      {%- for q in qis %}, max({{ dbt_deid.ident(q ~ '__cell') }}) as {{ dbt_deid.ident(q ~ '__revealed') }}{% endfor %}
    from deid_store
    group by record_key{% for q in qis %}, {{ dbt_deid.ident(q ~ '__true') }}{% endfor %}
  ),
  deid_states as (
    select s.*, row_number() over (partition by record_key order by deid_last_version desc) as deid_state_rank
    from deid_states_grouped as s
  ),
  deid_earlier as (
    select s.record_key, s.deid_state_rank
      {%- for q in qis %}
      , s.{{ dbt_deid.ident(q ~ '__true') }} as {{ dbt_deid.ident(q ~ '__earlier') }}
      , case when p.record_key is not null then p.{{ dbt_deid.ident(q ~ '__cell') }} else s.{{ dbt_deid.ident(q ~ '__revealed') }} end as {{ dbt_deid.ident(q ~ '__published') }}
      , s.{{ dbt_deid.ident(q ~ '__revealed') }} as {{ dbt_deid.ident(q ~ '__revealed') }}
      {%- endfor %}
    from deid_states as s
    left join deid_store as p
      on p.record_key = s.record_key and p.release_version = {{ line.previous }}
      {%- for q in qis %} and p.{{ dbt_deid.ident(q ~ '__true') }} = s.{{ dbt_deid.ident(q ~ '__true') }}{% endfor %}
  )
{%- endmacro %}

{#- The current records (every column of `generalized`) with their keyed record hash
    `deid_record_key` and pair columns. -#}
{% macro refresh_records_sql(cfg, generalized, line) -%}
  {{ return(dbt_deid.own(adapter.dispatch('refresh_records_sql', 'dbt_deid'))(cfg, generalized, line)) }}
{%- endmacro %}

{% macro default__refresh_records_sql(cfg, generalized, line) -%}
  with {{ dbt_deid._refresh_states_ctes(cfg, line) }},
  deid_current as (
    select g.*, {{ dbt_deid.keyed_record_hash_sql('g.' ~ dbt_deid.ident(cfg.record_id), 'k') }} as deid_record_key
    from {{ generalized }} as g
    cross join {{ line.key }} as k
  )
  select c.*
    {%- for s in ['__earlier', '__published', '__revealed'] %}{% for q in cfg.qi_names %}, e.{{ dbt_deid.ident(q ~ s) }}{% endfor %}{% endfor %}
  from deid_current as c
  left join deid_earlier as e on e.record_key = c.deid_record_key and e.deid_state_rank = 1
{%- endmacro %}

{#- The pairs (dbt_deid.living.pairs): current records grouped, and the states no longer
    current (not the latest state of a current record) with null current values. -#}
{% macro refresh_pairs_sql(cfg, generalized, line) -%}
  {{ return(dbt_deid.own(adapter.dispatch('refresh_pairs_sql', 'dbt_deid'))(cfg, generalized, line)) }}
{%- endmacro %}

{% macro default__refresh_pairs_sql(cfg, generalized, line) -%}
  {%- set cols = [] -%}{%- for c in dbt_deid.refresh_pair_columns(cfg) -%}{%- do cols.append(dbt_deid.ident(c)) -%}{%- endfor -%}
  {%- set s = dbt.type_string() -%}
  with {{ dbt_deid._refresh_states_ctes(cfg, line) }},
  deid_current as (
    select {{ dbt_deid.keyed_record_hash_sql('g.' ~ dbt_deid.ident(cfg.record_id), 'k') }} as deid_record_key
      {%- for q in cfg.qi_names %}, g.{{ dbt_deid.ident(q) }}{% endfor %}
    from {{ generalized }} as g
    cross join {{ line.key }} as k
  ),
  deid_pair_rows as (
    select {% for q in cfg.qi_names %}c.{{ dbt_deid.ident(q) }}, {% endfor %}
      {%- for s2 in ['__earlier', '__published', '__revealed'] %}{% for q in cfg.qi_names %}e.{{ dbt_deid.ident(q ~ s2) }}{{ ', ' if not (loop.last and s2 == '__revealed') }}{% endfor %}{% endfor %}
    from deid_current as c
    left join deid_earlier as e on e.record_key = c.deid_record_key and e.deid_state_rank = 1
    union all
    select {% for q in cfg.qi_names %}cast(null as {{ s }}), {% endfor %}
      {%- for s2 in ['__earlier', '__published', '__revealed'] %}{% for q in cfg.qi_names %}e.{{ dbt_deid.ident(q ~ s2) }}{{ ', ' if not (loop.last and s2 == '__revealed') }}{% endfor %}{% endfor %}
    from deid_earlier as e
    where e.deid_state_rank > 1
       or not exists (select 1 from deid_current as c where c.deid_record_key = e.record_key)
  )
  select {{ cols | join(', ') }}, count(*) as n
  from deid_pair_rows
  group by {{ cols | join(', ') }}
{%- endmacro %}

{#- deid_patterns as its readers (risk summary, diagnostics) expect it: one row per current QI
    tuple with its count. When deid_patterns holds the pairs of a refresh, the current tuples
    regrouped (the rows of states no longer current left out); else the relation itself. -#}
{% macro current_patterns(cfg, patterns) -%}
  {%- if not execute or not dbt_deid.can_inspect(patterns) -%}{{ return(patterns) }}{%- endif -%}
  {%- set have = adapter.get_columns_in_relation(patterns) | map(attribute='name') | map('lower') | list -%}
  {%- if (cfg.qi_names[0] ~ '__earlier') | lower not in have -%}{{ return(patterns) }}{%- endif -%}
  {%- set cols = [] -%}{%- for q in cfg.qi_names -%}{%- do cols.append(dbt_deid.ident(q)) -%}{%- endfor -%}
  {{ return('(select ' ~ cols | join(', ') ~ ', sum(n) as n from ' ~ patterns ~ ' where ' ~ cols[0] ~ ' is not null group by ' ~ cols | join(', ') ~ ')') }}
{%- endmacro %}
