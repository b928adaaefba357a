{#- dbt's sample mode (`dbt run|build --sample <window>`, or DBT_SAMPLE; dbt-core 1.10+): every
    ref() and source() of a node that has `event_time` configured reads only the rows of the
    window. A release computed under it is a release of the sampled records, whatever its
    gates say about them, while its audit (input_unchanged, row_count) would speak of the input:
    fail closed (review 8, F5). Two parts:

    - sample_mode(): whether this invocation samples. dbt-core 1.10 and 1.11 keep the option in
      the invocation's arguments (`invocation_args_dict['sample']`), not in the Jinja `flags`
      object (which lists EMPTY but not SAMPLE); `flags.SAMPLE` is read too, for a dbt that
      adds it.
    - sample_mode_results(): the publish step's gate `sample_mode`, failed under sample mode
      (the publish materialization then drops the candidate, leaves the published table as it
      was and appends a 'refused' history row), [] otherwise. Every publish model (discharge,
      claims, text) runs it.

    dbt_deid.release_source reads the source through the graph relation under sample mode, so
    the input snapshot and the input gates see every record, never a sampled ref. -#}
{% macro sample_mode() -%}
  {%- set args = invocation_args_dict if invocation_args_dict is defined else {} -%}
  {%- set from_flags = flags.SAMPLE if flags is defined and flags.SAMPLE is defined else none -%}
  {{ return((args or {}).get('sample') is not none or (from_flags is not none and from_flags is not false)) }}
{%- endmacro %}

{% macro sample_mode_results() -%}
  {%- if not execute or not dbt_deid.sample_mode() -%}{{ return([]) }}{%- endif -%}
  {{ return([{'gate': 'sample_mode', 'passed': false, 'failures': 1,
      'message': 'dbt ' ~ flags.WHICH ~ ' --sample filters every ref and source with event_time to the sample window, so this would be a release of the sampled records only, published as a normal version; nothing is published under --sample. Run without --sample, or leave the publish models out of a sampled run (--exclude tag:deid_publish); docs/overrides.md, "dbt flags"'}]) }}
{%- endmacro %}
