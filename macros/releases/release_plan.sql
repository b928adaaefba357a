{#- True when the project declares a release (var deid_release); the package's release models
    are disabled otherwise, so the package can be used for its macros and tests alone. -#}
{% macro release_enabled() -%}
  {{ return(dbt_deid.own(adapter.dispatch('release_enabled', 'dbt_deid'))()) }}
{%- endmacro %}

{% macro default__release_enabled() -%}
  {{ return(dbt_deid.release_settings() is not none) }}
{%- endmacro %}

{#- The release plan written by the deid_release_plan model (the Python core expands the
    combinations of Tables 4, 5, 7 and 8 there). kind: 'protected' or 'verified' return a list of
    combinations (lists of QI names), 'released' the published QIs in order, 'propagation' a
    list of [source, target], 'settings_md5' the settings md5s the plan table records (one
    for a plan this version built: the md5 of the settings it was resolved from; the gate
    plan_settings compares it with the settings of now), 'plan_format' the plan formats it
    records (one: dbt_deid.plan_format() of the package that resolved it; none for an older
    dbt_deid's plan), 'code_digest' the code digests it records (one: dbt_deid.code_digest() of
    the code that resolved it). Empty when not executing (parse time).

    One query per node: the whole plan is read once and kept in the node's context (`model`),
    so the several release_config() calls of a node re-read nothing.

    On a fresh warehouse (the plan table not built yet) `dbt compile`, `docs generate`, `ls`
    and `show` do not fail: they get the plan computed from the settings when the release has no
    hierarchical QIs (the same expansion as the core: the declared combinations, or all QIs),
    and an empty plan otherwise (the compiled SQL then lists no combination; a
    log line says so). Commands that build (`run`, `build`, `test`, ...) need the table: a
    missing plan there is an error naming the model to build first (fail closed). -#}
{% macro release_plan(kind) -%}
  {{ return(dbt_deid.own(adapter.dispatch('release_plan', 'dbt_deid'))(kind)) }}
{%- endmacro %}

{% macro default__release_plan(kind) -%}
  {#- A test reads the plan table without ref(): the gate tests then depend on the model they
      test only, so `dbt build -s +<an upstream model>` (eager indirect selection) does not
      pick them up and run them against a gate view this build did not refresh. -#}
  {%- set in_test = dbt_deid._in_test() -%}
  {%- set plan = dbt_deid.release_ref('deid_release_plan') if not in_test else none -%}
  {%- if not execute -%}{{ return([]) }}{%- endif -%}
  {%- if in_test -%}
    {%- set plan = dbt_deid._graph_relation(dbt_deid.release_node_name('deid_release_plan')) -%}
  {%- endif -%}
  {%- set cache_key = '__dbt_deid_release_plan' -%}
  {%- set cached = model.get(cache_key) if model is mapping else none -%}
  {%- if cached is none -%}
    {%- set cached = dbt_deid._read_release_plan(plan) -%}
    {%- if model is mapping -%}{%- do model.update({cache_key: cached}) -%}{%- endif -%}
  {%- endif -%}
  {%- set out = cached.get(kind, []) -%}
  {%- if kind == 'released' -%}{{ return(out[0] if out else []) }}{%- endif -%}
  {{ return(out) }}
{%- endmacro %}

{#- True for the commands that only compile or list (no model is built): there a release table
    that was never built is not an error. -#}
{% macro _compile_only_command() -%}
  {{ return((flags.WHICH | string | lower) in ['compile', 'docs', 'generate', 'list', 'ls', 'parse', 'serve']) }}
{%- endmacro %}

{#- The plan as {kind: [items in order]} (one query), or from the settings when the table is
    absent and the command only compiles (see release_plan). -#}
{% macro _read_release_plan(plan) -%}
  {#- the table itself, not the `limit 0` subquery ref() gives under `--empty`: the plan comes
      from the settings, not from data -#}
  {%- set plan = api.Relation.create(database=plan.database, schema=plan.schema, identifier=plan.identifier, type='table') -%}
  {%- if adapter.get_relation(database=plan.database, schema=plan.schema, identifier=plan.identifier) is none -%}
    {%- if not dbt_deid._compile_only_command() -%}
      {{ exceptions.raise_compiler_error("model " ~ this.identifier ~ ": the release plan " ~ plan ~ " has not been built; build it first (dbt build --select +" ~ this.identifier ~ ")") }}
    {%- endif -%}
    {{ return(dbt_deid._release_plan_from_settings()) }}
  {%- endif -%}
  {#- the settings md5s the plan records (one: the md5 of the settings it was resolved from; none
      for a plan built by an older dbt_deid), read with it: the gate plan_settings and the
      publish step compare them with the settings of now (plan_settings_gate.sql; review 9 final,
      F7). Not refused here: single models and previews (`dbt run -s <model> --vars ...`) read a
      plan of other settings; only publishing is refused. -#}
  {#- the rows kind 'setting' are the settings as auditors read them (the summary), not the plan -#}
  {%- set result = run_query("select * from " ~ plan ~ " where kind <> 'setting' order by kind, item, position") -%}
  {%- set names = result.column_names | map('lower') | list -%}
  {%- set at = [names.index('kind'), names.index('item'), names.index('position'), names.index('column_name')] -%}
  {%- set md5_at = names.index('settings_md5') if 'settings_md5' in names else none -%}
  {#- the plan format(s) it records (one: the number of the package that resolved it, none for
      a plan of an older dbt_deid; review 12, H1): plan_settings_problem compares them -#}
  {%- set format_at = names.index('plan_format') if 'plan_format' in names else none -%}
  {%- set digest_at = names.index('code_digest') if 'code_digest' in names else none -%}
  {%- set md5s = [] -%}
  {%- set formats = [] -%}
  {%- set digests = [] -%}
  {%- set rows = [] -%}
  {%- for r in result.rows -%}
    {%- do rows.append([r[at[0]], r[at[1]], r[at[2]], r[at[3]]]) -%}
    {%- if md5_at is not none and r[md5_at] not in md5s -%}{%- do md5s.append(r[md5_at]) -%}{%- endif -%}
    {%- if format_at is not none and r[format_at] is not none and (r[format_at] | int) not in formats -%}{%- do formats.append(r[format_at] | int) -%}{%- endif -%}
    {%- if digest_at is not none and r[digest_at] is not none and r[digest_at] not in digests -%}{%- do digests.append(r[digest_at]) -%}{%- endif -%}
  {%- endfor -%}
  {%- set items = {} -%}
  {%- set order = {} -%}
  {%- for r in rows -%}
    {%- if r[0] not in items -%}{%- do items.update({r[0]: {}}) -%}{%- do order.update({r[0]: []}) -%}{%- endif -%}
    {%- if r[1] not in items[r[0]] -%}{%- do items[r[0]].update({r[1]: []}) -%}{%- do order[r[0]].append(r[1]) -%}{%- endif -%}
    {%- do items[r[0]][r[1]].append(r[3]) -%}
  {%- endfor -%}
  {%- set out = {} -%}
  {%- for kind, ids in order.items() -%}
    {%- set lst = [] -%}
    {%- for i in ids -%}{%- do lst.append(items[kind][i]) -%}{%- endfor -%}
    {%- do out.update({kind: lst}) -%}
  {%- endfor -%}
  {%- do out.update({'settings_md5': md5s, 'plan_format': formats, 'code_digest': digests}) -%}
  {{ return(out) }}
{%- endmacro %}

{#- The plan the core would write, for a release without hierarchical QIs (dbt_deid.config:
    combinations as declared, else one combination of every QI; `complete` protects one
    combination of the QIs used; every QI released in order; no propagation). With
    hierarchical QIs the expansion (El Emam et al. 2011 Tables 4, 5, 7, 8) lives in the core only: empty. -#}
{% macro _release_plan_from_settings() -%}
  {%- set raw = dbt_deid.release_settings() -%}
  {%- if raw is not mapping or raw.get('hierarchical_qis') -%}
    {%- do log("dbt_deid: " ~ this.identifier ~ ": the release plan is not built yet; the compiled SQL lists no combination until `dbt build` writes deid_release_plan", info=true) -%}
    {{ return({}) }}
  {%- endif -%}
  {%- set qi_names = (raw.get('quasi_identifiers') or {}).keys() | list -%}
  {%- set combos = raw.get('combinations') -%}
  {%- if combos is none -%}
    {%- set combos = [qi_names] -%}
  {%- endif -%}
  {%- set combos = combos | map('list') | list -%}
  {%- set protected = combos -%}
  {%- if raw.get('algorithm') == 'complete' -%}
    {%- set used = [] -%}
    {%- for q in qi_names -%}
      {%- for c in combos -%}{%- if q in c and q not in used -%}{%- do used.append(q) -%}{%- endif -%}{%- endfor -%}
    {%- endfor -%}
    {%- set protected = [used] -%}
  {%- endif -%}
  {%- set verified = [] -%}
  {%- for c in combos -%}{%- if c not in verified -%}{%- do verified.append(c) -%}{%- endif -%}{%- endfor -%}
  {{ return({'protected': protected, 'verified': verified, 'released': [qi_names], 'settings_md5': [dbt_deid.settings_md5()], 'plan_format': [dbt_deid.plan_format()], 'code_digest': [dbt_deid.code_digest()]}) }}
{%- endmacro %}
