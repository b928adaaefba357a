{#- The release's `generalization` block (issue 4): absent or `search: fixed` = every QI at its
    configured level; `search: ola` = OLA (El Emam et al. 2012 "Base Algorithm") chooses the released
    levels, each QI's `level` being its minimum, `max_levels` its maximum acceptable level
    (El Emam et al. 2009 (CJHP) Table 2), `max_nodes` the largest lattice searched and `max_seconds` the time
    allowed (issue 18); beyond `max_nodes` a heuristic search (Lightning) runs within
    `heuristic_seconds` and `heuristic_nodes` (issue 36). Returns none for fixed levels, else
    {metric, max_levels, suppression, max_nodes, max_seconds, heuristic_seconds,
    heuristic_nodes}. Unknown
    settings and bad values raise one compiler error naming the setting (the Python core
    validates the same block in dbt_deid.ola.settings.ola_settings). -#}
{% macro ola_config() -%}
  {{ return(dbt_deid.own(adapter.dispatch('ola_config', 'dbt_deid'))()) }}
{%- endmacro %}

{% macro default__ola_config() -%}
  {%- set raw = (dbt_deid.release_settings() or {}).get('generalization') -%}
  {%- if raw is none -%}{{ return(none) }}{%- endif -%}
  {#- names and types: the one definition (the `generalization` section) -#}
  {%- do dbt_deid._check_value('release', 'generalization', raw, dbt_deid.settings_schema().sections.release.generalization) -%}
  {%- set search = dbt_deid._setting(raw, 'generalization', 'search') -%}
  {%- if search == 'fixed' -%}
    {%- if raw | length > 1 -%}
      {{ dbt_deid._config_error('generalization', 'metric, max_levels, suppression, max_nodes, max_seconds, heuristic_seconds and heuristic_nodes need search: ola') }}
    {%- endif -%}
    {{ return(none) }}
  {%- endif -%}
  {%- if 'max_nodes' in raw and raw.max_nodes is none -%}
    {{ dbt_deid._config_error('generalization.max_nodes', 'must be an integer >= 1, got null') }}
  {%- endif -%}
  {%- set max_levels = raw.get('max_levels') or {} -%}
  {%- set qis = dbt_deid.release_settings().get('quasi_identifiers') or {} -%}
  {%- for q, lvl in max_levels.items() -%}
    {%- if q not in qis -%}
      {{ dbt_deid._config_error('generalization.max_levels', 'names unknown quasi-identifier ' ~ q) }}
    {%- endif -%}
    {%- if lvl is not integer or lvl is boolean or lvl < ((qis[q] or {}).get('level', 0)) -%}
      {{ dbt_deid._config_error('generalization.max_levels.' ~ q, 'must be an integer >= the minimum level quasi_identifiers.' ~ q ~ '.level, got ' ~ dbt_deid._describe(lvl)) }}
    {%- endif -%}
  {%- endfor -%}
  {{ return({'metric': dbt_deid._setting(raw, 'generalization', 'metric'), 'max_levels': max_levels,
             'suppression': dbt_deid._setting(raw, 'generalization', 'suppression'),
             'max_nodes': dbt_deid._setting(raw, 'generalization', 'max_nodes'), 'max_seconds': raw.get('max_seconds'),
             'heuristic_seconds': dbt_deid._setting(raw, 'generalization', 'heuristic_seconds'),
             'heuristic_nodes': raw.get('heuristic_nodes')}) }}
{%- endmacro %}

{#- True when the release declares generalization.search: ola (enables the OLA models). -#}
{% macro ola_enabled() -%}
  {{ return(dbt_deid.own(adapter.dispatch('ola_enabled', 'dbt_deid'))()) }}
{%- endmacro %}

{% macro default__ola_enabled() -%}
  {%- set release = dbt_deid.release_settings() -%}
  {%- if release is not mapping or release.get('generalization') is not mapping -%}{{ return(false) }}{%- endif -%}
  {{ return(release.generalization.get('search') == 'ola') }}
{%- endmacro %}

{#- The released level of every QI: {} for fixed levels (each QI at its `level`), or with
    `search: ola` the levels chosen by OLA, read from deid_ola_levels at execute time (like
    release_plan() reads the plan; empty while parsing). Calling it makes the model depend on
    deid_ola_levels, whose gate deid_ola_node_found makes `dbt build` skip it when no node
    passes; under `dbt run` (no tests) it raises the gate's message itself. -#}
{% macro released_levels() -%}
  {{ return(dbt_deid.own(adapter.dispatch('released_levels', 'dbt_deid'))()) }}
{%- endmacro %}

{% macro default__released_levels() -%}
  {%- set ola = dbt_deid.ola_config() -%}
  {%- if ola is none -%}{{ return({}) }}{%- endif -%}
  {%- set rel = dbt_deid.release_ref('deid_ola_levels') -%}
  {%- if not execute -%}{{ return({}) }}{%- endif -%}
  {%- set rows = run_query("select qi_name, level, message from " ~ rel ~ " order by qi_order").rows -%}
  {%- set out = {} -%}
  {%- for r in rows -%}
    {%- if r[1] is none -%}
      {{ exceptions.raise_compiler_error("model " ~ this.identifier ~ ": " ~ (r[2] or 'OLA found no node that passes') ~ " (gate deid_ola_node_found)") }}
    {%- endif -%}
    {%- do out.update({r[0]: r[1] | int}) -%}
  {%- endfor -%}
  {{ return(out) }}
{%- endmacro %}
