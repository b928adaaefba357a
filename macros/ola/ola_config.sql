{#- The release's `generalization` block (issue 4): absent or `search: fixed` = every QI at its
    configured level; `search: ola` = OLA (El Emam et al. 2012 "Base Algorithm") chooses the released
    levels, each QI's `level` being its minimum, `max_levels` its maximum acceptable level
    (El Emam et al. 2009 (CJHP) Table 2), `max_nodes` the largest lattice searched and `max_seconds` the time
    allowed (issue 18; the search refuses a larger lattice before it starts). Returns none for
    fixed levels, else {metric, max_levels, suppression, max_nodes, max_seconds}. Unknown
    settings and bad values raise one compiler error naming the setting (the Python core
    validates the same block in dbt_deid.ola.settings.ola_settings). -#}
{% macro ola_config() -%}
  {{ return(dbt_deid.own(adapter.dispatch('ola_config', 'dbt_deid'))()) }}
{%- endmacro %}

{% macro default__ola_config() -%}
  {%- set raw = (dbt_deid.release_settings() or {}).get('generalization') -%}
  {%- if raw is none -%}{{ return(none) }}{%- endif -%}
  {%- set known = dbt_deid.settings_schema().sections.generalization.keys() | list -%}
  {%- if raw is not mapping -%}
    {{ dbt_deid._config_error('generalization', 'must be a mapping {' ~ known | join(', ') ~ '}') }}
  {%- endif -%}
  {%- for key in raw -%}
    {%- if key not in known -%}
      {{ dbt_deid._config_error('generalization', 'has unknown setting ' ~ key ~ '; known: ' ~ known | join(', ')) }}
    {%- endif -%}
  {%- endfor -%}
  {%- set search = raw.get('search', 'fixed') -%}
  {%- if search not in ['fixed', 'ola'] -%}
    {{ dbt_deid._config_error('generalization.search', 'must be fixed or ola, got ' ~ search) }}
  {%- endif -%}
  {%- if search == 'fixed' -%}
    {%- if raw | length > 1 -%}
      {{ dbt_deid._config_error('generalization', 'metric, max_levels, suppression, max_nodes and max_seconds need search: ola') }}
    {%- endif -%}
    {{ return(none) }}
  {%- endif -%}
  {%- set metric = raw.get('metric', 'entropy') -%}
  {%- if metric not in ['entropy', 'precision', 'discernibility', 'loss'] -%}
    {{ dbt_deid._config_error('generalization.metric', 'must be entropy, precision, discernibility or loss, got ' ~ metric) }}
  {%- endif -%}
  {%- set suppression = raw.get('suppression', 'records') -%}
  {%- if suppression not in ['records', 'cells'] -%}
    {{ dbt_deid._config_error('generalization.suppression', 'must be records or cells, got ' ~ suppression) }}
  {%- endif -%}
  {%- set max_levels = raw.get('max_levels') or {} -%}
  {%- if max_levels is not mapping -%}
    {{ dbt_deid._config_error('generalization.max_levels', 'must be a mapping quasi-identifier -> level') }}
  {%- endif -%}
  {%- set qis = dbt_deid.release_settings().get('quasi_identifiers') or {} -%}
  {%- for q, lvl in max_levels.items() -%}
    {%- if q not in qis -%}
      {{ dbt_deid._config_error('generalization.max_levels', 'names unknown quasi-identifier ' ~ q) }}
    {%- endif -%}
    {%- if lvl is not integer or lvl is boolean or lvl < ((qis[q] or {}).get('level', 0)) -%}
      {{ dbt_deid._config_error('generalization.max_levels.' ~ q, 'must be an integer >= the minimum level quasi_identifiers.' ~ q ~ '.level, got ' ~ lvl) }}
    {%- endif -%}
  {%- endfor -%}
  {%- set max_nodes = raw.get('max_nodes', dbt_deid._setting_default('generalization', 'max_nodes')) -%}
  {%- if max_nodes is boolean or max_nodes is not integer or max_nodes < 1 -%}
    {{ dbt_deid._config_error('generalization.max_nodes', 'must be an integer >= 1, got ' ~ max_nodes) }}
  {%- endif -%}
  {%- set max_seconds = raw.get('max_seconds', none) -%}
  {%- if max_seconds is not none and (max_seconds is boolean or max_seconds is not number or max_seconds <= 0) -%}
    {{ dbt_deid._config_error('generalization.max_seconds', 'must be a number > 0, got ' ~ max_seconds) }}
  {%- endif -%}
  {{ return({'metric': metric, 'max_levels': max_levels, 'suppression': suppression,
             'max_nodes': max_nodes, 'max_seconds': max_seconds}) }}
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
