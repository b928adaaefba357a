{#- What the release publishes from: the input snapshot (dbt_deid.release_snapshot), or, with `sample: {fraction, slot, seed}`,
    the records whose seeded hash of the record id falls in slot `slot` (hash range
    [slot x fraction, (slot + 1) x fraction)). Releases with the same seed and fraction and
    different slots are disjoint random samples (El Emam et al. 2011: the geographic and clinical PUMFs are
    two non-overlapping 10% samples), reproducible for the seed. The protection is computed on
    dbt_deid.protected_input (the same records, or the whole source under
    `sample.order: population_first`). -#}
{% macro release_input(cfg) -%}
  {{ return(dbt_deid.own(adapter.dispatch('release_input', 'dbt_deid'))(cfg)) }}
{%- endmacro %}

{% macro default__release_input(cfg) -%}
  {{ return(dbt_deid._sampled(cfg, dbt_deid.release_snapshot())) }}
{%- endmacro %}

{#- The release input read from the source itself (not the snapshot): for the checks that the
    release still matches the source as it is now (input_unchanged, the row count). -#}
{% macro source_input(cfg) -%}
  {{ return(dbt_deid._sampled(cfg, dbt_deid.release_source(cfg))) }}
{%- endmacro %}

{#- `relation`, or its records of the release's sample slot when the release sets `sample`. -#}
{% macro _sampled(cfg, relation) -%}
  {%- if cfg.sample is none -%}{{ return(relation) }}{%- endif -%}
  {{ return('(select * from ' ~ relation ~ ' where ' ~ dbt_deid.sample_condition(cfg) ~ ')') }}
{%- endmacro %}

{#- The input snapshot deid_input (the source read once per build into the working schema, with
    the columns the release reads): what the release's nodes read instead of the source. In a
    package test, from the graph without a dependency (as dbt_deid.release_source). -#}
{% macro release_snapshot() -%}
  {%- set name = dbt_deid.release_node_name('deid_input') -%}
  {%- if dbt_deid._in_test() -%}
    {%- if not execute -%}{{ return(api.Relation.create(identifier=name)) }}{%- endif -%}
    {%- set rel = dbt_deid._graph_relation(name) -%}
    {%- if rel is not none -%}{{ return(rel) }}{%- endif -%}
  {%- endif -%}
  {{ return(dbt_deid.release_ref('deid_input')) }}
{%- endmacro %}

{#- What the release's generalization and suppression run on: dbt_deid.release_input (the sample
    is drawn first, then protected: every class of the published file has k records), or, with
    `sample.order: population_first`, the whole source (its snapshot): seed 000's order, "generalization and
    suppression were performed on the full population DAD and the PUMF samples drawn from that"
    (El Emam et al. 2011, Attack 3; every population class at least k), the slot being drawn
    from the suppressed records by the view deid_sample_file. -#}
{% macro protected_input(cfg) -%}
  {%- if cfg.sample is not none and cfg.sample.order == 'population_first' -%}{{ return(dbt_deid.release_snapshot()) }}{%- endif -%}
  {{ return(dbt_deid.release_input(cfg)) }}
{%- endmacro %}

{#- The SQL condition that keeps the records of the release's sample slot: the first 8 hex
    digits of md5('<seed>:' || record id) in [slot x fraction, (slot + 1) x fraction) of 2^32
    (dbt_deid.sampling.sample_mask is its Python twin). -#}
{% macro sample_condition(cfg) -%}
  {%- set lo, hi = dbt_deid.sample_range(cfg.sample) -%}
  {%- set h = 'substr(' ~ dbt.hash(dbt.concat([dbt_deid.literal(cfg.sample.seed ~ ':'), 'cast(' ~ dbt_deid.ident(cfg.record_id) ~ ' as ' ~ dbt.type_string() ~ ')'])) ~ ', 1, 8)' -%}
  {{ return(h ~ " >= '" ~ ('%08x' | format(lo)) ~ "'" ~ ((" and " ~ h ~ " < '" ~ ('%08x' | format(hi)) ~ "'") if hi < 4294967296 else '')) }}
{%- endmacro %}

{#- A sample slot's range [lo, hi) of the 32-bit hash: [slot x fraction, (slot + 1) x fraction)
    of 2^32, floored (`sample`: {fraction, slot}, slot 0 when absent). Read by sample_condition
    and by samples_disjoint (two samples are disjoint when their ranges do not overlap). -#}
{% macro sample_range(sample) -%}
  {%- set scale = 4294967296 -%}
  {%- set slot = (sample.get('slot') or 0) | int -%}{%- set f = sample.get('fraction') | float -%}
  {{ return([(slot * f * scale) | round(0, 'floor') | int, ((slot + 1) * f * scale) | round(0, 'floor') | int]) }}
{%- endmacro %}
