{#- The longitudinal claims release (LOLA, El Emam et al. 2012: El Emam et al., the Heritage Health Prize
    release), declared in var('deid_claims_release'). Every bad value raises one compiler error
    "dbt_deid claims release setting '<name>': ..." naming the setting; unknown keys are errors.
    Returns the normalized settings with the core's defaults (dbt_deid.longitudinal):

    name; patients, claims (model/seed names or {source_name, table}); member_id, claim_id;
    demographic_qis, claim_qis (lists); hierarchies (column -> relation with level_0, level_1,
    ...); dimensions (list of {name, columns}: the lattice, default one per hierarchy column);
    pseudonymize ({patients: [...], claims: [...]}, default the member id) and key_env
    (DBT_DEID_PSEUDONYM_KEY); stigmatized_codes (relation with a `code` column or none) and
    stigmatized_column (diagnosis_code); top_code ({patients: [...], claims: [...]}) and
    top_code_percentile (99); truncate_percentile (95); truncate_partition (claim columns the
    claims are counted and truncated within, e.g. [year] as the HHP release; default none: per
    patient); provider_ids, provider_pattern, min_providers (20); release_columns ({patients:
    [...], claims: [...]}, non-QI columns published as they are); tau (0.05), sampling_fraction
    (1; key `alpha`), max_suppression (none = 0.0004 / tau, the Safe Harbor risk exposure; keys
    `max_sup` and `max_sup_value`), gate_on (mean | upper: the upper limit
    of the 95% interval of the mean), p_max (5), power_scale (1), bootstrap (B, 10000),
    iterations (I, 1000), bootstrap_scheme (pooled | independent: the paper's I x B draws),
    pool_size (knowledge draws of the pooled scheme, 100000), seed (0), variant (values |
    whole_claim | ordered_pair), attack_iterations (10000), attack_tau (none = tau),
    attack2_population (relation with one column per attack2_qis and `population`: people per
    class, e.g. census counts; none = attack 2 not computed) and attack2_qis (the demographic
    QIs a voter list or census holds, e.g. [age, sex]); the adversary's knowledge model
    (dbt_deid.longitudinal.adversary, docs/lola-adversary.md): known_demographic_qis (the
    demographic QIs the adversary knows; none = the reconstruction: age and sex when the release
    has QIs of those names, otherwise every demographic QI), power_function (reconstructed |
    log_diversity | claims) and knowledge_matching (multiset | set | distinct); attack 3
    (Table 6): attack3_population (relation, one row per inpatient visit, none = not computed),
    attack3_qi_sets (lists of demographic or claim QIs or number_of_visits),
    attack3_patient_column (patient_id), attack3_year_column (year) and attack3_visit_column
    (los: the claims that are inpatient visits). -#}
{% macro claims_release_config(release=none) -%}
  {{ return(dbt_deid.own(adapter.dispatch('claims_release_config', 'dbt_deid'))(release)) }}
{%- endmacro %}

{% macro _claims_config_error(setting, message) -%}
  {{ exceptions.raise_compiler_error("dbt_deid claims release setting '" ~ setting ~ "': " ~ message) }}
{%- endmacro %}

{#- Names, types and defaults come from the one definition (dbt_deid._check_var, the `claims`
    section of src/dbt_deid/settings_schema.py); what is left here relates settings to each
    other. -#}
{% macro default__claims_release_config(release) -%}
  {%- set raw = release if release is not none else var('deid_claims_release', none) -%}
  {%- do dbt_deid._check_var('claims', raw) -%}
  {%- set s = {} -%}
  {%- for key in dbt_deid.settings_schema().sections.claims -%}
    {%- do s.update({key: dbt_deid._setting(raw, 'claims', key)}) -%}
  {%- endfor -%}
  {%- set demo_qis, claim_qis = s.demographic_qis | list, s.claim_qis | list -%}
  {%- if claim_qis | length == 0 -%}
    {{ dbt_deid._claims_config_error('claim_qis', 'must list at least one claim quasi-identifier (El Emam et al. 2012, Table 3)') }}
  {%- endif -%}
  {%- for q in demo_qis + claim_qis -%}
    {%- if q in [s.member_id, s.claim_id] -%}
      {{ dbt_deid._claims_config_error('demographic_qis' if q in demo_qis else 'claim_qis', q ~ ' is the member or claim id, not a quasi-identifier') }}
    {%- endif -%}
    {%- if q in demo_qis and q in claim_qis -%}
      {{ dbt_deid._claims_config_error('claim_qis', q ~ ' is also a demographic quasi-identifier') }}
    {%- endif -%}
  {%- endfor -%}
  {%- set hier = s.hierarchies -%}
  {%- for q, rel in hier.items() -%}
    {%- if q not in demo_qis + claim_qis -%}
      {{ dbt_deid._claims_config_error('hierarchies.' ~ q, 'is not a demographic or claim quasi-identifier') }}
    {%- endif -%}
    {%- set message = dbt_deid._value_error(rel, {'type': 'relation'}) -%}
    {%- if message is not none -%}{{ dbt_deid._claims_config_error('hierarchies.' ~ q, message) }}{%- endif -%}
  {%- endfor -%}
  {%- set dims = [] -%}
  {%- if s.dimensions is none -%}
    {%- for q in demo_qis + claim_qis if q in hier -%}
      {%- do dims.append({'name': q, 'columns': [q]}) -%}
    {%- endfor -%}
  {%- else -%}
    {%- set seen = [] -%}
    {%- for d, cols in s.dimensions.items() -%}
      {%- if not dbt_deid._is_list(cols) or cols | length == 0 -%}
        {{ dbt_deid._claims_config_error('dimensions.' ~ d, 'must be a non-empty list of quasi-identifiers') }}
      {%- endif -%}
      {%- for c in cols -%}
        {%- if c not in hier -%}
          {{ dbt_deid._claims_config_error('dimensions.' ~ d, c ~ ' has no hierarchy (declare it under hierarchies)') }}
        {%- endif -%}
        {%- if c in seen -%}
          {{ dbt_deid._claims_config_error('dimensions.' ~ d, c ~ ' is in two dimensions') }}
        {%- endif -%}
        {%- do seen.append(c) -%}
      {%- endfor -%}
      {%- do dims.append({'name': d, 'columns': cols | list}) -%}
    {%- endfor -%}
    {%- for q in hier if q not in seen -%}
      {{ dbt_deid._claims_config_error('dimensions', q ~ ' has a hierarchy but is in no dimension') }}
    {%- endfor -%}
  {%- endif -%}
  {%- if dims | length == 0 -%}
    {{ dbt_deid._claims_config_error('hierarchies', 'declare at least one hierarchy: the lattice needs a dimension') }}
  {%- endif -%}
  {%- set tables = {} -%}
  {%- for key in ['pseudonymize', 'top_code', 'release_columns'] -%}
    {%- set v = s[key] or {} -%}
    {%- set dflt = [s.member_id] if key == 'pseudonymize' else [] -%}
    {%- do tables.update({key: {'patients': (v.patients or dflt) | list, 'claims': (v.claims or dflt) | list}}) -%}
  {%- endfor -%}
  {%- set pseudo = tables.pseudonymize -%}
  {%- for t in ['patients', 'claims'] -%}
    {%- if s.member_id not in pseudo[t] -%}
      {{ dbt_deid._claims_config_error('pseudonymize.' ~ t, 'must include the member id ' ~ s.member_id ~ ' (it links the two tables)') }}
    {%- endif -%}
    {%- for c in pseudo[t] if c in demo_qis + claim_qis -%}
      {{ dbt_deid._claims_config_error('pseudonymize.' ~ t, c ~ ' is a quasi-identifier') }}
    {%- endfor -%}
  {%- endfor -%}
  {%- for c in s.truncate_partition if c in [s.member_id, s.claim_id] + claim_qis -%}
    {{ dbt_deid._claims_config_error('truncate_partition', c ~ ' is the member id, the claim id or a claim quasi-identifier; name a column such as the claim year') }}
  {%- endfor -%}
  {%- if s.provider_ids | length > 0 and s.provider_pattern | length == 0 -%}
    {{ dbt_deid._claims_config_error('provider_pattern', 'must list the claim columns of the treatment pattern (El Emam et al. 2012: place of service, specialty, procedure, diagnosis)') }}
  {%- endif -%}
  {%- for c in s.provider_ids if c not in pseudo.claims -%}
    {{ dbt_deid._claims_config_error('provider_ids', c ~ ' must also be pseudonymized (add it to pseudonymize.claims)') }}
  {%- endfor -%}
  {%- set rel_cols = tables.release_columns -%}
  {%- for t, qis in [('patients', demo_qis), ('claims', claim_qis)] -%}
    {%- for c in rel_cols[t] if c in qis or c in pseudo[t] -%}
      {{ dbt_deid._claims_config_error('release_columns.' ~ t, c ~ ' is already published (quasi-identifier or pseudonymized id)') }}
    {%- endfor -%}
  {%- endfor -%}
  {%- for q in s.attack2_qis if q not in demo_qis -%}
    {{ dbt_deid._claims_config_error('attack2_qis', q ~ ' is not a demographic quasi-identifier (attack 2 matches the patients table to a voter list or census)') }}
  {%- endfor -%}
  {%- if s.attack2_population is not none and s.attack2_qis | length == 0 -%}
    {{ dbt_deid._claims_config_error('attack2_qis', 'must list the demographic quasi-identifiers of attack2_population (e.g. [age, sex])') }}
  {%- endif -%}
  {%- if s.attack2_population is none and s.attack2_qis | length > 0 -%}
    {{ dbt_deid._claims_config_error('attack2_population', 'must name the population table when attack2_qis is set') }}
  {%- endif -%}
  {%- set a3 = s.attack3_qi_sets or [] -%}
  {%- if (s.attack3_population is none) != (a3 | length == 0) -%}
    {{ dbt_deid._claims_config_error('attack3_qi_sets' if s.attack3_population is not none else 'attack3_population', 'attack3_population and attack3_qi_sets go together') }}
  {%- endif -%}
  {%- for qis in a3 -%}
    {%- if qis is string or qis is not iterable or qis is mapping or qis | length == 0 -%}
      {{ dbt_deid._claims_config_error('attack3_qi_sets', 'each QI set must be a non-empty list, got ' ~ qis) }}
    {%- endif -%}
    {%- for q in qis if q not in demo_qis + claim_qis + ['number_of_visits'] -%}
      {{ dbt_deid._claims_config_error('attack3_qi_sets', q ~ ' is not a demographic or claim quasi-identifier (or number_of_visits)') }}
    {%- endfor -%}
  {%- endfor -%}
  {%- if a3 | length > 0 and s.attack3_visit_column not in claim_qis -%}
    {{ dbt_deid._claims_config_error('attack3_visit_column', s.attack3_visit_column ~ ' is not a claim quasi-identifier (the column set only on inpatient visits, e.g. los)') }}
  {%- endif -%}
  {%- if s.known_demographic_qis is not none -%}
    {%- for q in s.known_demographic_qis if q not in demo_qis -%}
      {{ dbt_deid._claims_config_error('known_demographic_qis', q ~ ' is not a demographic quasi-identifier') }}
    {%- endfor -%}
  {%- endif -%}
  {#- The keys the SQL reads keep their names: `alpha` is sampling_fraction, `max_sup` the
      declared max_suppression (or none) and `max_sup_value` the MaxSup gated on (0.0004 / tau,
      the Safe Harbor risk exposure, when none is declared). -#}
  {%- do s.update({
      'hierarchies': hier, 'dimensions': dims, 'pseudonymize': pseudo, 'top_code': tables.top_code,
      'release_columns': rel_cols, 'demographic_qis': demo_qis, 'claim_qis': claim_qis,
      'alpha': s.sampling_fraction, 'max_sup': s.max_suppression,
      'max_sup_value': s.max_suppression if s.max_suppression is not none else [1.0, 0.0004 / s.tau] | min,
      'attack_tau': s.attack_tau if s.attack_tau is not none else s.tau,
  }) -%}
  {{ return(s) }}
{%- endmacro %}

{#- True when the project declares a claims release (var deid_claims_release). -#}
{% macro claims_release_enabled() -%}
  {{ return(dbt_deid.own(adapter.dispatch('claims_release_enabled', 'dbt_deid'))()) }}
{%- endmacro %}

{% macro default__claims_release_enabled() -%}
  {{ return(var('deid_claims_release', none) is not none) }}
{%- endmacro %}

{#- ref(name) or source(source_name, table) of a relation setting. -#}
{% macro claims_relation(name) -%}
  {%- if name is mapping -%}
    {{ return(source(name.source_name, name.table)) }}
  {%- else -%}
    {{ return(ref(name)) }}
  {%- endif -%}
{%- endmacro %}

{#- The hierarchical QIs of one table ('patients' or 'claims'), in the order of the settings. -#}
{% macro claims_hierarchical(cfg, table) -%}
  {%- set qis = cfg.demographic_qis if table == 'patients' else cfg.claim_qis -%}
  {{ return(qis | select('in', cfg.hierarchies.keys() | list) | list) }}
{%- endmacro %}
