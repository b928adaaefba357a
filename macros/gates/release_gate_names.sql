{#- The gate set of a discharge release (review 12, H1): the gates, in the gate table's order,
    whose verdicts the gate table (deid_gate_results) writes for `cfg` and the plan's
    propagation `pairs` (release_plan('propagation')), and which the publish step therefore
    requires (read_gate_table): a gate table that lacks one (computed by an older dbt_deid,
    which had no such gate, or edited) is refused naming it, not read as complete.

    The conditions are those release_gate_results (and the gate table model, for
    upstream_built) uses: propagation when the plan has a pair (gate_propagation_result returns
    none otherwise), the attribute-disclosure gates the release declares (optional_gates of
    `cfg` with sensitive columns, as attribute_disclosure_results decides, in its order),
    small_areas when enabled (small_areas_enabled, as release_gate_results decides). The gate table model refuses to build when
    the gates it computed are not this list, so the two cannot drift apart. A change of this
    list is a change of the gate set: bump dbt_deid.settings_schema.PLAN_FORMAT
    (tests/unit/test_gate_set.py pins the list to the number). -#}
{% macro release_gate_names(cfg, pairs) -%}
  {{ return(dbt_deid.own(adapter.dispatch('release_gate_names', 'dbt_deid'))(cfg, pairs)) }}
{%- endmacro %}

{% macro default__release_gate_names(cfg, pairs) -%}
  {%- set names = ['upstream_built', 'input_unchanged', 'released_levels'] -%}
  {%- if pairs -%}{%- do names.append('propagation') -%}{%- endif -%}
  {%- do names.extend(['plan_settings', 'k_anonymity', 'exact_k_anonymity', 'max_suppression', 'column_suppression_cap', 'row_count']) -%}
  {%- if cfg.sensitive -%}
    {%- for gate, declared in dbt_deid.optional_gates(cfg).items() if gate != 'small_areas' and declared -%}{%- do names.append(gate) -%}{%- endfor -%}
  {%- endif -%}
  {%- if dbt_deid.small_areas_enabled() -%}{%- do names.append('small_areas') -%}{%- endif -%}
  {{ return(names) }}
{%- endmacro %}
