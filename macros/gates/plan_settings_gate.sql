{#- The gate plan_settings (review 9 final, F7): the release plan deid_release_plan (the
    combinations the suppression protects and those the gates verify, El Emam et al. 2011
    Tables 4, 5, 7 and 8 expanded by the core; the released QIs) is read by every node of the
    release, and any invocation can rebuild it under other vars: a preview (`python -m dbt_deid
    advise --vars ...` builds +deid_suppression_map, the plan included; `dbt run -s <model> --vars
    ...`). A gate table rebuilt after it under the real settings (`dbt build -s
    deid_suppressed+`) verified the preview's combinations, and the gate working_tables
    fingerprinted that same plan in the same invocation, so version 1 was published without
    the real combinations ever checked. The plan records the md5 of the settings it was resolved
    from (settings_md5, dbt_deid.settings_md5 as the gate table and the history record it); this
    gate fails when the plan the node read (release_plan('settings_md5'), read in the same query
    as its combinations) records another md5, or none (a plan built by an older dbt_deid), and
    when it records another plan format than this package's (dbt_deid.plan_format(), or none:
    resolved by another dbt_deid from the same settings; review 12, H1).

    Computed once in the gate table (a verdict like the others, with its dbt test
    deid_gate_plan_settings), and again by the publish step on the plan it reads then (the gate
    working_tables, gate_working_tables_result). Single models and previews are not refused:
    they may read a plan of other settings; only publishing is. A failure names the plan, the
    md5s and the command that rebuilds the release; the passing message names the model only
    (the gate table's messages are compared across engines, whose relation names differ). -#}
{% macro gate_plan_settings_result() -%}
  {{ return(dbt_deid.own(adapter.dispatch('gate_plan_settings_result', 'dbt_deid'))()) }}
{%- endmacro %}

{% macro default__gate_plan_settings_result() -%}
  {%- set problem = dbt_deid.plan_settings_problem() -%}
  {{ return({'gate': 'plan_settings', 'passed': problem is none, 'failures': 0 if problem is none else 1,
      'message': (problem ~ '; rebuild the release with its upstream models (dbt build -s +' ~ dbt_deid.release_node_name('deid_published') ~ ')') if problem is not none
                 else 'the release plan ' ~ dbt_deid.release_node_name('deid_release_plan') ~ ' was computed from these settings'}) }}
{%- endmacro %}

{#- The reason the plan this node read is not bound to the settings of now, or none. -#}
{% macro plan_settings_problem() -%}
  {%- set plan = dbt_deid.release_ref('deid_release_plan') -%}
  {%- set found = dbt_deid.release_plan('settings_md5') -%}
  {%- set now = dbt_deid.settings_md5() -%}
  {%- if found | length == 0 -%}
    {{ return('the release plan ' ~ plan ~ ' (deid_release_plan) records no settings_md5 (built by an earlier version of dbt_deid), so it cannot be bound to the settings of now (settings_md5 ' ~ now ~ ')') }}
  {%- endif -%}
  {%- if found != [now] -%}
    {{ return('the release plan ' ~ plan ~ ' (deid_release_plan) was computed from other settings (settings_md5 ' ~ found | join(', ') ~ ', now ' ~ now ~ '; a preview such as `python -m dbt_deid advise --vars ...` or `dbt run -s deid_release_plan --vars ...` rebuilt it), so the combinations the gates verified and the columns released are not those these settings declare') }}
  {%- endif -%}
  {#- the plan was resolved by this package's resolver (review 12, H1: a plan an older dbt_deid
      resolved from the same settings carried the old resolver's propagation pairs) -#}
  {%- set formats = dbt_deid.release_plan('plan_format') -%}
  {%- if formats != [dbt_deid.plan_format()] -%}
    {{ return('the release plan ' ~ plan ~ ' (deid_release_plan) was built by another version of dbt_deid (plan format ' ~ (formats | join(', ') if formats else 'none') ~ ', this package writes ' ~ dbt_deid.plan_format() ~ ', version ' ~ dbt_deid.package_version() ~ '), so its combinations and propagation pairs are not those this package resolves from these settings') }}
  {%- endif -%}
  {#- and by this code (review 12 final, M1): a change of the resolver that keeps the plan
      format is a change of the code digest -#}
  {%- set digests = dbt_deid.release_plan('code_digest') -%}
  {%- if digests != [dbt_deid.code_digest()] -%}
    {{ return('the release plan ' ~ plan ~ ' (deid_release_plan) was built by other dbt_deid code (code digest ' ~ (digests | join(', ') if digests else 'none') ~ ', this package ' ~ dbt_deid.code_digest() ~ ': an upgrade or a change of the package since; or, when it was just rebuilt, the Python package dbt_deid that resolved it and this dbt package are different versions: install one dbt_deid version with pip and in packages.yml), so its combinations and propagation pairs may not be those this code resolves from these settings') }}
  {%- endif -%}
  {{ return(none) }}
{%- endmacro %}
