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

    - check_sample_mode(): the package's `on-run-start` hook (review 8 final, R4): under sample
      mode, an invocation that selects any node of a release (a node of package dbt_deid, or
      an extra release's `<release>__deid_*` model) fails before any node runs; a `dbt retry`
      under sample mode (DBT_SAMPLE is honoured there) fails when the project has any model of
      a release, since dbt tells no hook which nodes a retry runs (retry_invocation(); review
      13 final, L1). Refusing the publish step alone was not enough: the claims and text inputs are views over
      source()/ref(), so `--sample --exclude tag:deid_publish` left working views and tables
      built from the sampled rows, and a later unsampled `dbt run -s tag:deid_publish`
      published from them (the claims and text gates have no input fingerprint). A sampled run
      must leave every release out: `--exclude package:dbt_deid` and the extra releases'
      model paths.

    dbt_deid.release_source reads the source through the graph relation under sample mode (dbt's
    filter is bypassed; a source that is itself a model rebuilt under --sample is sampled, which
    is one more reason the sampled run is refused). -#}
{% macro sample_mode() -%}
  {%- set args = invocation_args_dict if invocation_args_dict is defined else {} -%}
  {%- set from_flags = flags.SAMPLE if flags is defined and flags.SAMPLE is defined else none -%}
  {{ return((args or {}).get('sample') is not none or (from_flags is not none and from_flags is not false)) }}
{%- endmacro %}

{% macro sample_mode_results() -%}
  {%- if not execute or not dbt_deid.sample_mode() -%}{{ return([]) }}{%- endif -%}
  {{ return([{'gate': 'sample_mode', 'passed': false, 'failures': 1,
      'message': 'dbt ' ~ flags.WHICH ~ ' --sample filters every ref and source with event_time to the sample window, so this would be a release of the sampled records only, published as a normal version; nothing is published under --sample. Run without --sample; a sampled run must leave every release out, working models included (--exclude package:dbt_deid and the extra releases\' model paths); docs/overrides.md, "dbt flags"'}]) }}
{%- endmacro %}

{% macro check_sample_mode() -%}
  {%- if not execute or not dbt_deid.sample_mode() -%}{{ return('') }}{%- endif -%}
  {#- a `dbt retry` selects what failed, but dbt tells no hook what: every model of a release
      (the models hold the sampled rows; graph.nodes also lists the package's hooks) -#}
  {%- set every = dbt_deid.retry_invocation() -%}
  {%- set selected = selected_resources or [] -%}
  {%- set names = [] -%}{%- set paths = [] -%}
  {%- for node in graph.nodes.values() if (every and node.resource_type == 'model') or node.unique_id in selected -%}
    {%- set extra = node.resource_type == 'model' and dbt_deid._split_release_node(node.name) is not none -%}
    {%- if node.package_name == 'dbt_deid' or extra -%}
      {%- do names.append(node.name) -%}
      {%- if extra and node.package_name != 'dbt_deid' -%}
        {%- set path = 'path:' ~ (node.original_file_path | replace('\\', '/')).rsplit('/', 1)[0] -%}
        {%- if path not in paths -%}{%- do paths.append(path) -%}{%- endif -%}
      {%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if names -%}
    {{ exceptions.raise_compiler_error("dbt_deid [sample_mode]: nothing was built: dbt " ~ ("retry (of a " ~ flags.WHICH ~ ") under --sample may rerun any of " if every else flags.WHICH ~ " --sample selects ") ~ names | length ~ " node(s) of a de-identified release: " ~ dbt_deid._first_names(names | sort)
        ~ ". Under --sample every ref and source with event_time reads only the window's rows, so the release's working tables and views would hold the sampled records, and a later run without --sample could publish from them as a normal version. Run the releases without --sample, and leave every release out of a sampled run: --exclude package:dbt_deid" ~ ([''] + paths) | join(' ') ~ "; docs/projects.md, \"Fresh warehouses, --empty and --sample\"") }}
  {%- endif -%}
  {{ return('') }}
{%- endmacro %}
