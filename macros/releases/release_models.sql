{#- The bodies of the package's discharge-release models, one macro per model
    (`deid_model_<model name>`, dispatched by dbt_deid.release_model()). Each model file of the
    package, and each `<release>__<model>` file of an extra release, is the one line
    `{{ dbt_deid.release_model() }}`, so every release runs the same SQL on its own tables:
    refs between the release's models go through dbt_deid.release_ref() and its settings through
    dbt_deid.release_config() (macros/releases/releases.sql). -#}

{#- The body of the current node (dbt_deid.release_base_name()): the macro deid_model_<name>
    below (adapter-dispatched, so an adapter can override one model's body). dbt needs the
    dispatched names spelt out, hence one line per package model. -#}
{% macro release_model() -%}
  {%- set base = dbt_deid.release_base_name() -%}
  {#- the engine's settings for the model's own transaction (PostgreSQL's work_mem), never on
      the publish model; a model's own header (deid_suppressed_patterns' on PostgreSQL) includes them -#}
  {%- set header = dbt_deid.release_sql_header() if base != 'deid_published' else none -%}
  {%- if header -%}{%- do config(sql_header=header) -%}{%- endif -%}
  {#- and before the checks the body runs while it is rendered (run_query: the input checks of
      deid_generalized, deid_hierarchy's), in the same transaction as the model's create
      statement: at PostgreSQL's defaults they sorted and hashed the 2.4 million records with
      4MB and JIT (issue 37, session 16) -#}
  {%- if header and execute -%}{%- do run_query(header) -%}{%- endif -%}
  {%- if base == 'deid_gate_results' -%}{{ return(dbt_deid.own(adapter.dispatch('deid_model_deid_gate_results', 'dbt_deid'))()) }}
  {%- elif base == 'deid_generalized' -%}{{ return(dbt_deid.own(adapter.dispatch('deid_model_deid_generalized', 'dbt_deid'))()) }}
  {%- elif base == 'deid_hierarchy' -%}{{ return(dbt_deid.own(adapter.dispatch('deid_model_deid_hierarchy', 'dbt_deid'))()) }}
  {%- elif base == 'deid_input' -%}{{ return(dbt_deid.own(adapter.dispatch('deid_model_deid_input', 'dbt_deid'))()) }}
  {%- elif base == 'deid_patterns' -%}{{ return(dbt_deid.own(adapter.dispatch('deid_model_deid_patterns', 'dbt_deid'))()) }}
  {%- elif base == 'deid_suppressed' -%}{{ return(dbt_deid.own(adapter.dispatch('deid_model_deid_suppressed', 'dbt_deid'))()) }}
  {%- elif base == 'deid_ola_levels' -%}{{ return(dbt_deid.own(adapter.dispatch('deid_model_deid_ola_levels', 'dbt_deid'))()) }}
  {%- elif base == 'deid_ola_patterns' -%}{{ return(dbt_deid.own(adapter.dispatch('deid_model_deid_ola_patterns', 'dbt_deid'))()) }}
  {%- elif base == 'deid_published' -%}{{ return(dbt_deid.own(adapter.dispatch('deid_model_deid_published', 'dbt_deid'))()) }}
  {%- elif base == 'deid_population_patterns' -%}{{ return(dbt_deid.own(adapter.dispatch('deid_model_deid_population_patterns', 'dbt_deid'))()) }}
  {%- elif base == 'deid_diagnostics' -%}{{ return(dbt_deid.own(adapter.dispatch('deid_model_deid_diagnostics', 'dbt_deid'))()) }}
  {%- elif base == 'deid_small_area_hierarchy' -%}{{ return(dbt_deid.own(adapter.dispatch('deid_model_deid_small_area_hierarchy', 'dbt_deid'))()) }}
  {%- elif base == 'deid_report_inputs' -%}{{ return(dbt_deid.own(adapter.dispatch('deid_model_deid_report_inputs', 'dbt_deid'))()) }}
  {%- elif base == 'deid_small_area_inputs' -%}{{ return(dbt_deid.own(adapter.dispatch('deid_model_deid_small_area_inputs', 'dbt_deid'))()) }}
  {%- elif base == 'deid_suppressed_patterns' -%}{{ return(dbt_deid.own(adapter.dispatch('deid_model_deid_suppressed_patterns', 'dbt_deid'))()) }}
  {%- elif base == 'deid_sample_file' -%}{{ return(dbt_deid.own(adapter.dispatch('deid_model_deid_sample_file', 'dbt_deid'))()) }}
  {%- endif -%}
  {{ exceptions.raise_compiler_error("model " ~ dbt_deid._current_node_name() ~ ": dbt_deid.release_model() builds the package's release models (<release>__<package model>, e.g. clinical__deid_patterns); " ~ base ~ " is none of them") }}
{%- endmacro %}

{#- models/deid_gate_results.sql -#}
{% macro default__deid_model_deid_gate_results() -%}
{{ config(enabled=dbt_deid.release_enabled()) }}
{%- if dbt_deid.release_enabled() -%}
{%- set cfg = dbt_deid.release_config() -%}
{#- The gate table (macros/gates/gate_table.sql): every release gate's verdict on the checked
    release (deid_suppressed), computed once per build, with the fingerprints that bind it. The
    gate tests (plain failing-rows queries on this table: macros/gates/gate_test.sql), the
    publish materialization, the history, the report and the summary read it. The gate tests
    also depend on deid_diagnostics, so a failing one makes `dbt build` skip the publish model
    only (docs/gate-once.md, "The gate tests on the gate table"). -#}
{%- if dbt_deid.small_areas_enabled() %}
-- depends_on: {{ dbt_deid.release_ref('deid_small_areas') }}
{%- endif %}
-- depends_on: {{ dbt_deid.release_ref('deid_hierarchy') }} (the gate released_levels)
-- depends_on: {{ dbt_deid.release_ref('deid_release_plan') }} (its fingerprint: the gate working_tables)
{% do dbt_deid.release_ref('deid_input') %}{# the input snapshot (release_snapshot) #}
-- depends_on: {{ dbt_deid.release_ref('deid_suppressed_patterns') }}
{%- for h in cfg.attribute_disclosure.hierarchies.values() %}
-- depends_on: {{ ref(h) }}
{%- endfor %}
{%- if dbt_deid.population_first() %}
-- depends_on: {{ dbt_deid.release_ref('deid_sample_file') }}
{%- endif %}
{%- do dbt_deid.release_source(cfg) -%}  {#- the input_unchanged gate reads the source -#}
{%- do dbt_deid.assert_no_overrides("model " ~ this.identifier) -%}
{%- set truth = dbt_deid.checked_release() -%}
{%- set results = dbt_deid.release_gate_results(cfg, truth, truth) -%}
{#- first: the verdicts below hold only if every working model upstream was built with this
    table (upstream_built_gate.sql; review 10, A1) -#}
{%- if results | length > 0 -%}{%- do results.insert(0, dbt_deid.gate_upstream_built_result()) -%}{%- endif -%}
{#- the gates computed are the release's gate set, the one the publish step requires
    (release_gate_names; review 12, H1): a gate added to release_gate_results and not to the
    set (and to the plan format) fails here, not silently at the publish step -#}
{%- if results | length > 0 -%}
  {%- set computed = [] -%}
  {%- for r in results -%}{%- if r.gate not in computed -%}{%- do computed.append(r.gate) -%}{%- endif -%}{%- endfor -%}
  {%- set expected = dbt_deid.release_gate_names(cfg, dbt_deid.release_plan('propagation')) -%}
  {%- if computed != expected -%}
    {{ exceptions.raise_compiler_error("model " ~ this.identifier ~ ": dbt_deid computed the gates " ~ computed | join(', ') ~ " but its gate set (release_gate_names) is " ~ expected | join(', ') ~ "; this is a bug of dbt_deid (update release_gate_names and bump dbt_deid.settings_schema.PLAN_FORMAT); nothing was published") }}
  {%- endif -%}
{%- endif -%}
{%- set binding = {'settings_md5': none, 'input_hash': none, 'checked_hash': none, 'released_levels': none, 'working_hashes': none} -%}
{%- if results | length > 0 -%}
  {#- input_hash: the source's fingerprint, taken now by input_unchanged (in its scan, where the
      engine allows it) and compared there with the input snapshot's, taken by
      release_gate_results (the gate table records it: input_rows, snapshot_hash);
      released_levels: the levels the gate released_levels proved the checked release is at -#}
  {%- set unchanged = results | selectattr('gate', 'equalto', 'input_unchanged') | list -%}
  {%- set levelled = results | selectattr('gate', 'equalto', 'released_levels') | list -%}
  {%- set binding = dbt_deid.gate_table_binding(cfg, truth, unchanged[0].get('input_fingerprint') or {'hash': none}, unchanged[0].get('checked_fingerprint'), levelled[0].levels, unchanged[0].get('snapshot_fingerprint')) -%}
{%- endif %}
{{ dbt_deid.gate_table_sql(results, binding) }}
{%- endif %}
{%- endmacro %}

{#- models/deid_generalized.sql -#}
{% macro default__deid_model_deid_generalized() -%}
{{ config(enabled=dbt_deid.release_enabled()) }}
{%- if dbt_deid.release_enabled() -%}
{%- set cfg = dbt_deid.release_config() -%}
{%- do dbt_deid.release_source(cfg) -%}  {#- the input checks read its columns -#}
{%- if execute -%}
  {%- do dbt_deid.assert_release_inputs(cfg, dbt_deid.release_ref('deid_hierarchy')) -%}
{%- endif -%}
{% do dbt_deid.release_ref('deid_input') %}{# the input snapshot (release_snapshot) #}
{%- if dbt_deid.ola_enabled() %}
-- depends_on: {{ dbt_deid.release_ref('deid_ola_levels') }} (the levels chosen by OLA)
{% endif -%}
{{ dbt_deid.generalize_sql(cfg, dbt_deid.release_ref('deid_hierarchy')) }}
{%- endif %}
{%- endmacro %}

{#- models/deid_hierarchy.sql -#}
{% macro default__deid_model_deid_hierarchy() -%}
{{ config(enabled=dbt_deid.release_enabled()) }}
{%- if dbt_deid.release_enabled() -%}
{%- set cfg = dbt_deid.release_config() -%}
{%- do dbt_deid.release_source(cfg) -%}  {#- the input checks read its columns -#}
{{ dbt_deid.hierarchy_sql(cfg) }}
{% do dbt_deid.release_ref('deid_input') %}{# the input snapshot (release_snapshot) #}
{%- endif %}
-- depends_on: {{ dbt_deid.release_ref('deid_release_plan') }}
{%- endmacro %}

{#- models/deid_input.sql -#}
{% macro default__deid_model_deid_input() -%}
{{ config(enabled=dbt_deid.release_enabled()) }}
{%- if dbt_deid.release_enabled() -%}
{%- set cfg = dbt_deid.release_config() -%}
{#- The input snapshot (issue 33, item 2): the source's records, read once per build into the
    working schema (it holds original values, so never where the published mart is shared), with
    the columns the release reads (record id, quasi-identifier, pass-through and sensitive
    columns: dbt_deid.released_source_columns; direct identifiers and excluded columns are not
    copied). Every later node reads it (dbt_deid.release_snapshot): the input checks, the
    hierarchy, the generalization, the publish step's join. The gate table fingerprints it
    (release_gate_results; the node deid_input_fingerprint before 0.3.0); the checks that
    the release still matches the source (input_unchanged, the publish step's fingerprint in a
    later invocation, the row-count test) read the source itself. -#}
{%- set src = dbt_deid.release_source(cfg) -%}
{%- set columns = dbt_deid.released_source_columns(cfg) if execute else [] -%}
{#- Never `select *` over a source that exists (it would copy direct identifiers); on a fresh
    warehouse under compile/docs/ls the source may not exist yet (can_inspect) and nothing runs. -#}
{%- if execute and columns | length == 0 and dbt_deid.can_inspect(src) -%}
  {{ exceptions.raise_compiler_error("dbt_deid release '" ~ cfg.name ~ "': the source " ~ src ~ " has none of the release's columns (record_id, quasi_identifiers, pass_through, sensitive), or does not exist; check `source` and the column names. Nothing was copied.") }}
{%- endif %}
select {% for c in columns %}{{ dbt_deid.ident(c) }}{% if not loop.last %}, {% endif %}{% else %}*{% endfor %}
from {{ src }}
{%- endif %}
-- depends_on: {{ dbt_deid.release_ref('deid_release_plan') }}
{%- endmacro %}

{#- models/deid_patterns.sql -#}
{% macro default__deid_model_deid_patterns() -%}
{{ config(enabled=dbt_deid.release_enabled()) }}
{%- if dbt_deid.release_enabled() -%}
{%- set cfg = dbt_deid.release_config() -%}
{#- A line with published versions is refreshed (issue 32): the pattern table is then the
    pairs of the store and the current records (macros/releases/refresh_line.sql). -#}
{% do dbt_deid.release_ref('deid_input') %}{# the input snapshot (release_snapshot) #}
{%- set line = dbt_deid.refresh_line(cfg) -%}
{%- if line is not none %}
{#- a value the line released in one group, in another now: refused before the refresh
    (macros/gates/hierarchy_moves.sql; the gate combined_releases checks it too) -#}
{%- do dbt_deid.assert_no_hierarchy_moves(cfg, dbt_deid.release_ref('deid_generalized'), line.store) -%}
{{ dbt_deid.refresh_pairs_sql(cfg, dbt_deid.release_ref('deid_generalized'), line) }}
{%- elif cfg.attribute_disclosure.remedy == 'suppress' %}
{#- attribute_disclosure.remedy: one row per QI pattern x sensitive tuple (macros/generalize/
    sensitive_patterns.sql); readers wanting QI patterns only regroup (current_patterns) -#}
{{ dbt_deid.sensitive_pattern_counts_sql(cfg, dbt_deid.release_ref('deid_generalized')) }}
{%- else %}
{{ dbt_deid.pattern_counts_sql(dbt_deid.release_ref('deid_generalized'), cfg.qi_names) }}
{%- endif %}
{%- endif %}
{%- endmacro %}

{#- models/deid_sample_file.sql -#}
{% macro default__deid_model_deid_sample_file() -%}
{{ config(enabled=dbt_deid.release_enabled() and dbt_deid.population_first(), materialized='view') }}
{%- if dbt_deid.release_enabled() and dbt_deid.population_first() %}
{#- Under `sample.order: population_first` (El Emam et al. 2011's order) deid_suppressed is the
    protected population; this view is the file drawn from it, the checked release that the gate
    table checks and the publish step publishes (dbt_deid.checked_release). #}
{%- set cfg = dbt_deid.release_config() %}
select * from {{ dbt_deid.release_ref('deid_suppressed') }}
where {{ dbt_deid.sample_condition(cfg) }}
{%- endif %}
{%- endmacro %}

{#- models/deid_suppressed.sql -#}
{% macro default__deid_model_deid_suppressed() -%}
{{ config(enabled=dbt_deid.release_enabled()) }}
{%- if dbt_deid.release_enabled() -%}
{%- set cfg = dbt_deid.release_config() -%}
{% do dbt_deid.release_ref('deid_input') %}{# the input snapshot (release_snapshot) #}
{%- set line = dbt_deid.refresh_line(cfg) -%}
{%- if line is not none %}
{#- a refresh: the map is keyed by the pairs' columns (macros/releases/refresh_line.sql) -#}
{{ dbt_deid.apply_suppression_sql(cfg, '(' ~ dbt_deid.refresh_records_sql(cfg, dbt_deid.release_ref('deid_generalized'), line) ~ ')', dbt_deid.release_ref('deid_suppression_map'), dbt_deid.refresh_pair_columns(cfg)) }}
{%- elif cfg.attribute_disclosure.remedy == 'suppress' %}
{#- attribute_disclosure.remedy: the map is keyed by the QIs and the sensitive values -#}
{{ dbt_deid.apply_suppression_sql(cfg, '(' ~ dbt_deid.sensitive_values_sql(cfg, dbt_deid.release_ref('deid_generalized')) ~ ')', dbt_deid.release_ref('deid_suppression_map'), cfg.qi_names + cfg.sensitive) }}
{%- else %}
{{ dbt_deid.apply_suppression_sql(cfg, dbt_deid.release_ref('deid_generalized'), dbt_deid.release_ref('deid_suppression_map')) }}
{%- endif %}
{%- endif %}
{%- endmacro %}

{#- models/ola/deid_ola_levels.sql -#}
{% macro default__deid_model_deid_ola_levels() -%}
{{ config(enabled=dbt_deid.ola_enabled()) }}
{%- if dbt_deid.ola_enabled() -%}
{%- set cfg = dbt_deid.release_config() -%}
{{ dbt_deid.ola_levels_sql(cfg, dbt_deid.release_ref('deid_ola_search'), dbt_deid.release_ref('deid_hierarchy')) }}
{%- endif %}
{%- endmacro %}

{#- models/ola/deid_ola_patterns.sql -#}
{% macro default__deid_model_deid_ola_patterns() -%}
{{ config(enabled=dbt_deid.ola_enabled()) }}
{%- if dbt_deid.ola_enabled() -%}
{%- set cfg = dbt_deid.release_config() -%}
{%- do dbt_deid.ola_config() -%}
{%- do dbt_deid.release_source(cfg) -%}  {#- the input checks read its columns -#}
{% do dbt_deid.release_ref('deid_input') %}{# the input snapshot (release_snapshot) #}
{%- if execute -%}
  {%- do dbt_deid.assert_release_inputs(cfg, dbt_deid.release_ref('deid_hierarchy')) -%}
{%- endif -%}
{{ dbt_deid.ola_patterns_sql(cfg, dbt_deid.release_ref('deid_hierarchy')) }}
{%- endif %}
{%- endmacro %}

{#- models/publish/deid_published.sql -#}
{% macro default__deid_model_deid_published() -%}
{{ config(enabled=dbt_deid.release_enabled(), materialized='deid_publish', deid_checks='release',
          pre_hook="{{ dbt_deid.refuse_publish_clone() }}") }}
{%- if dbt_deid.release_enabled() -%}
{%- do dbt_deid.assert_no_overrides("model " ~ this.identifier) -%}  {#- first: before any other package macro runs -#}
{%- set cfg = dbt_deid.release_config() -%}
{#- The publish model. Its materialization (deid_publish) writes a candidate table, runs every
    release gate on it and replaces the published table only when all pass: `dbt run`,
    `dbt build -s deid_published`, excluded tests and severity overrides cannot publish a failing
    release. Every source column must have a role (dbt_deid.assert_column_roles). -#}
{%- if execute -%}
  {%- if config.get('materialized') != 'deid_publish' -%}
    {{ exceptions.raise_compiler_error("model " ~ this.identifier ~ ": must be materialized as deid_publish (the materialization that runs the gates on what it writes), got " ~ config.get('materialized') ~ "; remove the override") }}
  {%- endif -%}
  {%- do dbt_deid.assert_column_roles(cfg) -%}
{%- endif %}
{#- The release manifest (dbt_deid.record_release) reads the achieved figures and the
    information loss of this release (deid_diagnostics): built first. #}
-- depends_on: {{ dbt_deid.release_ref('deid_diagnostics') }}
{%- if dbt_deid.small_areas_enabled() %}
-- depends_on: {{ dbt_deid.release_ref('deid_small_areas') }}
{%- endif %}
-- depends_on: {{ dbt_deid.release_ref('deid_gate_results') }}
{% do dbt_deid.release_ref('deid_input') %}{# the input snapshot (release_snapshot) #}
{% do dbt_deid.release_source(cfg) %}{# its columns, and its fingerprint in a later invocation #}
{% do dbt_deid.release_ref('deid_suppressed_patterns') %}{# the candidate's proof in the gate table's invocation #}
{% do dbt_deid.release_ref('deid_hierarchy') %}{# its fingerprint, in a later invocation (the gate working_tables) #}
{#- the advice its refusal message carries (dbt_deid.release_advice_message: the advice rows
    of the suppression map, upstream of every gate already; no node that can fail for other
    reasons than the release's own) #}
-- depends_on: {{ dbt_deid.release_ref('deid_suppression_map') }}
{%- if dbt_deid.population_first() %}
-- depends_on: {{ dbt_deid.release_ref('deid_sample_file') }}
{%- endif %}
{# the formatted cells' lookups read the released values from the pattern table (publish_sql) #}
{{ dbt_deid.publish_sql(cfg, dbt_deid.checked_release(), dbt_deid.release_ref('deid_suppressed_patterns')) }}
{%- endif %}
{%- endmacro %}

{#- models/risk/deid_diagnostics.sql -#}
{% macro default__deid_model_deid_diagnostics() -%}
{{ config(enabled=dbt_deid.release_enabled()) }}
{%- if dbt_deid.release_enabled() -%}
{%- set cfg = dbt_deid.release_config() -%}
{%- set rcfg = dbt_deid.risk_suite_config() -%}
{#- The release's pattern-level diagnostics and figures in one table (issue 33, item 3; long
    format, one `diagnostic` per figure set: dbt_deid.diagnostics_rows_sql): the risk CDF per
    stage, the class-size histogram, the suppression breakdown, the risk summary and the
    information loss. The generalized stage reads the pattern table, the published stage, the
    suppression breakdown and the risk summary deid_suppressed_patterns (what is published,
    dbt_deid.checked_release, grouped), the exact figures its exact check's columns
    (exact_distribution_sql).
    The information loss needs each record's original and released values, and the original
    stage's CDF each record's original values: both read one grouped CTE (deid_loss_patterns:
    released QIs, `__original` columns, n), one scan of the records. In the plain chain (the
    condition under which deid_suppressed_patterns is computed from the pattern table and the
    map) the records are deid_generalized with the suppression map applied by the SQL that
    builds deid_suppressed (apply_suppression_sql on the same relations: the same rows, ranks
    broken by the record id), so the record-level released table is not read here (issue 33:
    at most 4 reads per build); only when deid_suppressed, deid_generalized and the map are all
    built by this invocation (dbt_deid.built_together). Otherwise (one of them left by another
    build, a refresh line, the attribute_disclosure remedy, `sample.order: population_first`)
    the information loss reads the checked release and the original stage deid_generalized,
    as before the fold.
    invocation_id binds the figures to the gate table of the same invocation, built before
    this table (depends_on): the history records them only then (dbt_deid.history_figures_result). -#}
-- depends_on: {{ dbt_deid.release_ref('deid_gate_results') }}
{#- the checked release, read outside the plain chain (dbt_deid.checked_release), which a line
    enters after its first published version: declared at parse time, when there is none -#}
-- depends_on: {{ dbt_deid.checked_release() }}
{%- set generalized = dbt_deid.release_ref('deid_generalized') -%}
{%- set published = dbt_deid.release_ref('deid_suppressed_patterns') -%}
{%- set hierarchy = dbt_deid.release_ref('deid_hierarchy') -%}
{%- set suppression_map = dbt_deid.release_ref('deid_suppression_map') -%}
{%- set sources = dbt_deid.original_value_sources(cfg) -%}
{#- the plain chain only when deid_suppressed was built in this invocation from the
    deid_generalized and the map read here (review 9 final, F4: after a preview rebuilt them,
    `dbt run -s deid_gate_results+` would record the preview's information loss) -#}
{%- set plain = dbt_deid.refresh_line(cfg) is none and cfg.attribute_disclosure.remedy != 'suppress' and not dbt_deid.population_first()
    and dbt_deid.built_together(['deid_suppressed', 'deid_generalized', 'deid_suppression_map']) -%}
{%- if plain -%}
  {%- set records = dbt_deid.diagnostics_records(cfg, generalized, suppression_map) -%}
  {%- set original = dbt_deid.risk_cdf_sql('deid_loss_patterns', cfg.record_id, cfg.verified_combinations, 'original', 'n', sources) -%}
{%- else -%}
  {%- set records = dbt_deid.checked_release() -%}
  {%- set original = dbt_deid.risk_cdf_sql(generalized, cfg.record_id, cfg.verified_combinations, 'original', none, sources) -%}
{%- endif -%}
{%- set loss = dbt_deid.information_loss_grouped_sql(cfg, 'deid_loss_patterns', hierarchy, 'n', true) if cfg.released_qis else none %}
with {{ dbt_deid.information_loss_patterns_cte(cfg, records) }}
select d.*, cast({{ dbt_deid.literal(invocation_id) }} as {{ dbt.type_string() }}) as invocation_id
from ({{ dbt_deid.diagnostics_rows_sql(
    [original,
     dbt_deid.risk_cdf_sql(dbt_deid.current_patterns(cfg, dbt_deid.release_ref('deid_patterns')), cfg.record_id, cfg.verified_combinations, 'generalized', 'n'),
     dbt_deid.risk_cdf_sql(published, cfg.record_id, cfg.verified_combinations, 'published', 'n')],
    dbt_deid.suppression_by_sql(rcfg.release, published, rcfg.by, 'n'),
    dbt_deid.risk_summary_rows_sql(cfg, dbt_deid.current_patterns(cfg, dbt_deid.release_ref('deid_patterns')), published, '(' ~ dbt_deid.exact_distribution_sql(published, cfg.verified_combinations) ~ ') as deid_exact_distribution__', 'deid_cdf__'),
    loss) }}) as d
{%- endif %}
{%- endmacro %}

{#- models/risk/deid_population_patterns.sql -#}
{% macro default__deid_model_deid_population_patterns() -%}
{#- built only with a sampling fraction, population size or population: the population risk
    and uniqueness models (Python, so they ref it whatever the release gives) are built then;
    empty without a population relation. The report reads it through deid_report_inputs. -#}
{{ config(enabled=dbt_deid.population_risk_enabled()) }}
{%- if dbt_deid.population_risk_enabled() -%}
{%- set rcfg = dbt_deid.risk_suite_config() -%}
{{ dbt_deid.population_patterns_sql(rcfg, dbt_deid.release_ref('deid_hierarchy')) }}
{%- endif %}
{%- endmacro %}

{#- models/risk/deid_small_area_hierarchy.sql -#}
{% macro default__deid_model_deid_small_area_hierarchy() -%}
{{ config(enabled=dbt_deid.small_areas_enabled()) }}
{%- if dbt_deid.small_areas_enabled() -%}
{{ dbt_deid.small_area_hierarchy_sql(dbt_deid.risk_suite_config()) }}
{%- endif %}
{%- endmacro %}

{#- models/deid_report_inputs.sql -#}
{% macro default__deid_model_deid_report_inputs() -%}
{{ config(enabled=dbt_deid.release_enabled(), materialized='view') }}
{%- if dbt_deid.release_enabled() -%}
{%- set cfg = dbt_deid.release_config() -%}
{#- The report's optional inputs, one `part` each (dbt_deid.report_inputs_sql), built for every
    release so the report reads one relation whatever the release declares: the nodes OLA
    evaluated (a projection of deid_ola_search, computed once there; none when the levels are
    set in the settings, deid_ola_search is then disabled and never referenced), the
    release's rows of deid_release_history, the small-area inputs (deid_small_area_inputs,
    built only with small_areas), the population patterns (deid_population_patterns, built
    only with population information) and the algorithm comparison (deid_algorithm_comparison,
    built only with report.algorithm_comparison). A model that is not built is not referenced (the ref
    is not rendered at parse, so it is no dependency; a ref to a disabled node would fail).
    A view: the report reads what the history holds when it runs (issue 35). The publish
    model is found in the graph, not through ref(): the report must not wait for it (a
    refused release's report is written too). The history exists before any node of the
    invocation runs (the package's on-run-start hook prepare_release_tables creates it). -#}
{%- set pub = dbt_deid._graph_relation(dbt_deid.release_node_name('deid_published')) if execute else none -%}
{%- set history = api.Relation.create(database=pub.database, schema=pub.schema, identifier='deid_release_history', type='table') if pub is not none else none -%}
{%- if history is not none and adapter.get_relation(history.database, history.schema, history.identifier) is none -%}
  {%- set history = none -%}
{%- endif -%}
{%- set ola = dbt_deid.ola_enabled() %}
{{ dbt_deid.report_inputs_sql(cfg,
    dbt_deid.release_ref('deid_ola_search') if ola else none,
    dbt_deid.ola_config().metric if ola else none, history, pub,
    dbt_deid.release_ref('deid_small_area_inputs') if dbt_deid.small_areas_enabled() else none,
    dbt_deid.release_ref('deid_population_patterns') if dbt_deid.population_risk_enabled() else none,
    dbt_deid.release_ref('deid_algorithm_comparison') if dbt_deid.algorithm_comparison_enabled() else none) }}
{%- endif %}
{%- endmacro %}

{#- models/risk/deid_small_area_inputs.sql -#}
{% macro default__deid_model_deid_small_area_inputs() -%}
{#- built only with small_areas (the report reads it through deid_report_inputs) -#}
{{ config(enabled=dbt_deid.small_areas_enabled()) }}
{%- if dbt_deid.small_areas_enabled() -%}
{{ dbt_deid.small_area_inputs_sql(dbt_deid.risk_suite_config()) }}
{%- endif %}
{%- endmacro %}

{#- models/risk/deid_suppressed_patterns.sql -#}
{% macro default__deid_model_deid_suppressed_patterns() -%}
{{ config(enabled=dbt_deid.release_enabled()) }}
{%- if dbt_deid.release_enabled() -%}
{%- set cfg = dbt_deid.release_config() -%}
{#- the published records' patterns (dbt_deid.checked_release: under `sample.order:
    population_first` the file, not the protected population), so the risk summary, the exact
    check, the risk CDF and the risk suite describe what is published; the columns are the ones
    the exact gate's proof compares (dbt_deid.pattern_columns) -#}
{#- The plain chain (no refresh line, no attribute_disclosure remedy, the file is the protected
    records): from the pattern table and the suppression map, without reading the records
    (released_patterns_sql; the gate table proves it is the checked release grouped).
    Otherwise the checked release grouped. -#}
{%- set plain = dbt_deid.refresh_line(cfg) is none and cfg.attribute_disclosure.remedy != 'suppress' and not dbt_deid.population_first() -%}
{%- if plain -%}
  {%- set inputs = [dbt_deid.release_ref('deid_patterns'), dbt_deid.release_ref('deid_suppression_map')] -%}
  {%- set rows = dbt_deid.released_patterns_sql(cfg, inputs[0], inputs[1]) -%}
{%- else -%}
  {%- set inputs = [dbt_deid.checked_release()] -%}
  {%- set rows = dbt_deid.pattern_counts_sql(inputs[0], dbt_deid.pattern_columns(cfg)) -%}
{%- endif -%}
{#- The exact check, computed once per build (issue 33, items 2 and 3; the model
    deid_exact_consistent until session 13): per verified combination the size of each row's
    consistent set (deid_consistent_<i>) and the combinations they were computed for
    (deid_exact_combinations), columns of the rows they describe, so bound to this table by
    construction (exact_consistent_columns_sql). The gate table's exact gate, the risk summary,
    the report and the algorithm comparison read its distribution (exact_distribution_sql).
    The suppression masks of the rows are read first (null_masks): in the plain chain from
    the map's flags and the pattern table's NULLs (released_masks_sql: a superset, without the
    rows' join of the pattern table and the map), else over the rows' query. -#}
{%- if plain -%}
  {%- set mcols = [] -%}
  {%- for b in cfg.verified_combinations -%}{%- for c in b -%}{%- if c not in mcols -%}{%- do mcols.append(c) -%}{%- endif -%}{%- endfor -%}{%- endfor -%}
  {%- set mask_rows = '(' ~ dbt_deid.released_masks_sql(inputs[0], inputs[1], mcols) ~ ') as deid_mask_rows__' -%}
{%- else -%}
  {%- set mask_rows = '(' ~ rows ~ ') as deid_mask_rows__' -%}
{%- endif -%}
{%- set masks = dbt_deid.null_masks(mask_rows, cfg.verified_combinations, inputs) if execute else [] -%}
{%- if not masks -%}{%- for b in cfg.verified_combinations -%}{%- do masks.append([]) -%}{%- endfor -%}{%- endif %}
{%- if plain %}
-- depends_on: {{ dbt_deid.release_ref('deid_suppressed') }}
{%- endif %}
with deid_released__ as (
{{ dbt_deid.cte_computed_once(rows) }}
)
{{ dbt_deid.exact_consistent_columns_sql('deid_released__', cfg.verified_combinations, masks) }}
{%- endif %}
{%- endmacro %}

