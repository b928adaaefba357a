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
    [...], claims: [...]}, non-QI columns published as they are); tau (0.05), alpha (1), max_sup
    (none = 0.0004 / tau, the Safe Harbor risk exposure), gate_on (mean | upper: the upper limit
    of the 95% interval of the mean), p_max (5), power_scale (1), bootstrap (B, 10000),
    iterations (I, 1000), bootstrap_scheme (pooled | independent: the paper's I x B draws),
    pool_size (knowledge draws of the pooled scheme, 100000), seed (0), variant (values |
    whole_claim | ordered_pair), attack_iterations (10000), attack_tau (none = tau),
    attack2_population (relation with one column per attack2_qis and `population`: people per
    class, e.g. census counts; none = attack 2 not computed) and attack2_qis (the demographic
    QIs a voter list or census holds, e.g. [age, sex]). -#}
{% macro claims_release_config(release=none) -%}
  {{ return(dbt_deid.own(adapter.dispatch('claims_release_config', 'dbt_deid'))(release)) }}
{%- endmacro %}

{% macro _claims_config_error(setting, message) -%}
  {{ exceptions.raise_compiler_error("dbt_deid claims release setting '" ~ setting ~ "': " ~ message) }}
{%- endmacro %}

{% macro _claims_columns(raw, key, default) -%}
  {%- set v = raw.get(key, default) -%}
  {%- if v is none -%}{{ return([]) }}{%- endif -%}
  {%- if not dbt_deid._is_list(v) -%}
    {{ dbt_deid._claims_config_error(key, 'must be a list of column names, got ' ~ v) }}
  {%- endif -%}
  {%- for c in v -%}
    {%- if c is not string or c | length == 0 -%}
      {{ dbt_deid._claims_config_error(key, 'must hold non-empty column names, got ' ~ c) }}
    {%- endif -%}
  {%- endfor -%}
  {%- if v | unique | list | length != v | length -%}
    {{ dbt_deid._claims_config_error(key, 'repeats a column: ' ~ v | join(', ')) }}
  {%- endif -%}
  {{ return(v | list) }}
{%- endmacro %}

{#- A {patients: [...], claims: [...]} setting; each list of column names (default empty). -#}
{% macro _claims_per_table(raw, key, default) -%}
  {%- set v = raw.get(key, default) -%}
  {%- if v is none -%}{%- set v = {} -%}{%- endif -%}
  {%- if v is not mapping -%}
    {{ dbt_deid._claims_config_error(key, 'must be a mapping {patients: [...], claims: [...]}') }}
  {%- endif -%}
  {%- for t in v -%}
    {%- if t not in ['patients', 'claims'] -%}
      {{ dbt_deid._claims_config_error(key ~ '.' ~ t, 'is not a table; use patients or claims') }}
    {%- endif -%}
  {%- endfor -%}
  {{ return({'patients': dbt_deid._claims_columns(v, 'patients', []) if v.get('patients') is not none else [],
             'claims': dbt_deid._claims_columns(v, 'claims', []) if v.get('claims') is not none else []}) }}
{%- endmacro %}

{% macro _claims_percentile(raw, key, default) -%}
  {%- set v = raw.get(key, default) -%}
  {%- if v is not number or v is boolean or v <= 0 or v > 100 -%}
    {{ dbt_deid._claims_config_error(key, 'must be a percentile in (0, 100], got ' ~ v) }}
  {%- endif -%}
  {{ return(v) }}
{%- endmacro %}

{% macro _claims_int(raw, key, default, minimum) -%}
  {%- set v = raw.get(key, default) -%}
  {%- if v is not integer or v is boolean or v < minimum -%}
    {{ dbt_deid._claims_config_error(key, 'must be an integer >= ' ~ minimum ~ ', got ' ~ v) }}
  {%- endif -%}
  {{ return(v) }}
{%- endmacro %}

{% macro _claims_rate(raw, key, default, allow_none=false) -%}
  {%- set v = raw.get(key, default) -%}
  {%- if v is none and allow_none -%}{{ return(none) }}{%- endif -%}
  {%- if v is not number or v is boolean or v <= 0 or v > 1 -%}
    {{ dbt_deid._claims_config_error(key, 'must be a number in (0, 1], got ' ~ v) }}
  {%- endif -%}
  {{ return(v) }}
{%- endmacro %}

{% macro default__claims_release_config(release) -%}
  {%- set raw = release if release is not none else var('deid_claims_release', none) -%}
  {%- if raw is none or raw is not mapping -%}
    {{ dbt_deid._claims_config_error('deid_claims_release', 'declare the claims release as a mapping in var deid_claims_release') }}
  {%- endif -%}
  {%- set known = ['name', 'patients', 'claims', 'member_id', 'claim_id', 'demographic_qis',
                   'claim_qis', 'hierarchies', 'dimensions', 'pseudonymize', 'key_env',
                   'stigmatized_codes', 'stigmatized_column', 'top_code', 'top_code_percentile',
                   'truncate_percentile', 'truncate_partition', 'provider_ids',
                   'provider_pattern', 'min_providers', 'release_columns', 'tau', 'alpha',
                   'max_sup', 'gate_on', 'p_max', 'power_scale', 'bootstrap', 'iterations',
                   'bootstrap_scheme', 'pool_size', 'seed', 'variant', 'attack_iterations',
                   'attack_tau', 'attack2_population', 'attack2_qis'] -%}
  {%- for key in raw -%}
    {%- if key not in known -%}
      {%- set hint = dbt_deid._closest_name(key, known) -%}
      {{ dbt_deid._claims_config_error(key, 'unknown setting' ~ ("; did you mean '" ~ hint ~ "'?" if hint is not none else '') ~ ' (known settings are ' ~ known | join(', ') ~ ')') }}
    {%- endif -%}
  {%- endfor -%}
  {%- for key in ['patients', 'claims'] -%}
    {%- if not dbt_deid._is_relation_name(raw.get(key)) -%}
      {{ dbt_deid._claims_config_error(key, 'must be a model/seed name or {source_name: ..., table: ...}') }}
    {%- endif -%}
  {%- endfor -%}
  {%- set name = raw.get('name', 'claims_release') -%}
  {%- if name is not string or name | length == 0 -%}
    {{ dbt_deid._claims_config_error('name', 'must be a non-empty string') }}
  {%- endif -%}
  {%- set ids = {} -%}
  {%- for key in ['member_id', 'claim_id'] -%}
    {%- set v = raw.get(key, key) -%}
    {%- if v is not string or v | length == 0 -%}
      {{ dbt_deid._claims_config_error(key, 'must be a column name, got ' ~ v) }}
    {%- endif -%}
    {%- do ids.update({key: v}) -%}
  {%- endfor -%}
  {%- set demo_qis = dbt_deid._claims_columns(raw, 'demographic_qis', none) -%}
  {%- set claim_qis = dbt_deid._claims_columns(raw, 'claim_qis', none) -%}
  {%- if claim_qis | length == 0 -%}
    {{ dbt_deid._claims_config_error('claim_qis', 'must list at least one claim quasi-identifier (El Emam et al. 2012, Table 3)') }}
  {%- endif -%}
  {%- for q in demo_qis + claim_qis -%}
    {%- if q in [ids.member_id, ids.claim_id] -%}
      {{ dbt_deid._claims_config_error('demographic_qis' if q in demo_qis else 'claim_qis', q ~ ' is the member or claim id, not a quasi-identifier') }}
    {%- endif -%}
  {%- endfor -%}
  {%- for q in demo_qis -%}
    {%- if q in claim_qis -%}
      {{ dbt_deid._claims_config_error('claim_qis', q ~ ' is also a demographic quasi-identifier') }}
    {%- endif -%}
  {%- endfor -%}
  {%- set hier = raw.get('hierarchies', {}) -%}
  {%- if hier is none -%}{%- set hier = {} -%}{%- endif -%}
  {%- if hier is not mapping -%}
    {{ dbt_deid._claims_config_error('hierarchies', 'must be a mapping quasi-identifier -> hierarchy model/seed (columns level_0, level_1, ...)') }}
  {%- endif -%}
  {%- for q, rel in hier.items() -%}
    {%- if q not in demo_qis + claim_qis -%}
      {{ dbt_deid._claims_config_error('hierarchies.' ~ q, 'is not a demographic or claim quasi-identifier') }}
    {%- endif -%}
    {%- if not dbt_deid._is_relation_name(rel) -%}
      {{ dbt_deid._claims_config_error('hierarchies.' ~ q, 'must be a model/seed name or {source_name: ..., table: ...}') }}
    {%- endif -%}
  {%- endfor -%}
  {%- set dims_raw = raw.get('dimensions') -%}
  {%- set dims = [] -%}
  {%- if dims_raw is none -%}
    {%- for q in demo_qis + claim_qis if q in hier -%}
      {%- do dims.append({'name': q, 'columns': [q]}) -%}
    {%- endfor -%}
  {%- elif dims_raw is not mapping or dims_raw | length == 0 -%}
    {{ dbt_deid._claims_config_error('dimensions', 'must be a mapping lattice dimension -> list of hierarchical quasi-identifiers generalized together') }}
  {%- else -%}
    {%- set seen = [] -%}
    {%- for d, cols in dims_raw.items() -%}
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
  {%- set pseudo = dbt_deid._claims_per_table(raw, 'pseudonymize', {'patients': [ids.member_id], 'claims': [ids.member_id]}) -%}
  {%- for t in ['patients', 'claims'] -%}
    {%- if ids.member_id not in pseudo[t] -%}
      {{ dbt_deid._claims_config_error('pseudonymize.' ~ t, 'must include the member id ' ~ ids.member_id ~ ' (it links the two tables)') }}
    {%- endif -%}
    {%- for c in pseudo[t] if c in demo_qis + claim_qis -%}
      {{ dbt_deid._claims_config_error('pseudonymize.' ~ t, c ~ ' is a quasi-identifier') }}
    {%- endfor -%}
  {%- endfor -%}
  {%- set key_env = raw.get('key_env', 'DBT_DEID_PSEUDONYM_KEY') -%}
  {%- if key_env is not string or not modules.re.match('^[A-Za-z_][A-Za-z0-9_]*$', key_env) -%}
    {{ dbt_deid._claims_config_error('key_env', 'must be the name of an environment variable (never the key itself)') }}
  {%- endif -%}
  {%- set stig = raw.get('stigmatized_codes') -%}
  {%- if stig is not none and not dbt_deid._is_relation_name(stig) -%}
    {{ dbt_deid._claims_config_error('stigmatized_codes', 'must be a model/seed name (column `code`), {source_name, table} or null') }}
  {%- endif -%}
  {%- set stig_col = raw.get('stigmatized_column', 'diagnosis_code') -%}
  {%- if stig_col is not string or stig_col | length == 0 -%}
    {{ dbt_deid._claims_config_error('stigmatized_column', 'must be a claims column name') }}
  {%- endif -%}
  {%- set top = dbt_deid._claims_per_table(raw, 'top_code', {}) -%}
  {%- set top_pct = dbt_deid._claims_percentile(raw, 'top_code_percentile', 99) -%}
  {%- set trunc_pct = dbt_deid._claims_percentile(raw, 'truncate_percentile', 95) -%}
  {%- set trunc_part = dbt_deid._claims_columns(raw, 'truncate_partition', []) -%}
  {%- for c in trunc_part if c in [ids.member_id, ids.claim_id] + claim_qis -%}
    {{ dbt_deid._claims_config_error('truncate_partition', c ~ ' is the member id, the claim id or a claim quasi-identifier; name a column such as the claim year') }}
  {%- endfor -%}
  {%- set prov_ids = dbt_deid._claims_columns(raw, 'provider_ids', []) -%}
  {%- set pattern = dbt_deid._claims_columns(raw, 'provider_pattern', []) -%}
  {%- if prov_ids | length > 0 and pattern | length == 0 -%}
    {{ dbt_deid._claims_config_error('provider_pattern', 'must list the claim columns of the treatment pattern (El Emam et al. 2012: place of service, specialty, procedure, diagnosis)') }}
  {%- endif -%}
  {%- for c in prov_ids if c not in pseudo.claims -%}
    {{ dbt_deid._claims_config_error('provider_ids', c ~ ' must also be pseudonymized (add it to pseudonymize.claims)') }}
  {%- endfor -%}
  {%- set min_prov = dbt_deid._claims_int(raw, 'min_providers', 20, 1) -%}
  {%- set rel_cols = dbt_deid._claims_per_table(raw, 'release_columns', {}) -%}
  {%- for t, qis in [('patients', demo_qis), ('claims', claim_qis)] -%}
    {%- for c in rel_cols[t] if c in qis or c in pseudo[t] -%}
      {{ dbt_deid._claims_config_error('release_columns.' ~ t, c ~ ' is already published (quasi-identifier or pseudonymized id)') }}
    {%- endfor -%}
  {%- endfor -%}
  {%- set tau = dbt_deid._claims_rate(raw, 'tau', 0.05) -%}
  {%- set alpha = dbt_deid._claims_rate(raw, 'alpha', 1.0) -%}
  {%- set max_sup = raw.get('max_sup') -%}
  {%- if max_sup is not none and not dbt_deid._is_fraction(max_sup) -%}
    {{ dbt_deid._claims_config_error('max_sup', 'must be a number in [0, 1] or null (0.0004 / tau, the Safe Harbor risk exposure), got ' ~ max_sup) }}
  {%- endif -%}
  {%- set max_sup_value = max_sup if max_sup is not none else [1.0, 0.0004 / tau] | min -%}
  {%- set gate_on = raw.get('gate_on', 'mean') -%}
  {%- if gate_on not in ['mean', 'upper'] -%}
    {{ dbt_deid._claims_config_error('gate_on', 'must be mean (the bootstrap mean, the paper) or upper (the upper 95% limit), got ' ~ gate_on) }}
  {%- endif -%}
  {%- set p_max = dbt_deid._claims_int(raw, 'p_max', 5, 1) -%}
  {%- set scale = raw.get('power_scale', 1.0) -%}
  {%- if scale is not number or scale is boolean or scale <= 0 -%}
    {{ dbt_deid._claims_config_error('power_scale', 'must be a positive number, got ' ~ scale) }}
  {%- endif -%}
  {%- set bootstrap = dbt_deid._claims_int(raw, 'bootstrap', 10000, 1) -%}
  {%- set iterations = dbt_deid._claims_int(raw, 'iterations', 1000, 1) -%}
  {%- set scheme = raw.get('bootstrap_scheme', 'pooled') -%}
  {%- if scheme not in ['pooled', 'independent'] -%}
    {{ dbt_deid._claims_config_error('bootstrap_scheme', 'must be pooled (pool_size draws spread over the patients) or independent (the paper: iterations x bootstrap draws), got ' ~ scheme) }}
  {%- endif -%}
  {%- set pool_size = dbt_deid._claims_int(raw, 'pool_size', 100000, 1) -%}
  {%- set seed = dbt_deid._claims_int(raw, 'seed', 0, 0) -%}
  {%- set variant = raw.get('variant', 'values') -%}
  {%- if variant not in ['values', 'whole_claim', 'ordered_pair'] -%}
    {{ dbt_deid._claims_config_error('variant', 'must be values (the paper), whole_claim or ordered_pair (sensitivity analyses), got ' ~ variant) }}
  {%- endif -%}
  {%- set attack_iterations = dbt_deid._claims_int(raw, 'attack_iterations', 10000, 1) -%}
  {%- set attack_tau = dbt_deid._claims_rate(raw, 'attack_tau', none, true) -%}
  {%- set pop = raw.get('attack2_population') -%}
  {%- if pop is not none and not dbt_deid._is_relation_name(pop) -%}
    {{ dbt_deid._claims_config_error('attack2_population', 'must be a model/seed name or {source_name, table} (one column per attack2_qis and `population`), or null') }}
  {%- endif -%}
  {%- set a2_qis = dbt_deid._claims_columns(raw, 'attack2_qis', []) -%}
  {%- for q in a2_qis if q not in demo_qis -%}
    {{ dbt_deid._claims_config_error('attack2_qis', q ~ ' is not a demographic quasi-identifier (attack 2 matches the patients table to a voter list or census)') }}
  {%- endfor -%}
  {%- if pop is not none and a2_qis | length == 0 -%}
    {{ dbt_deid._claims_config_error('attack2_qis', 'must list the demographic quasi-identifiers of attack2_population (e.g. [age, sex])') }}
  {%- endif -%}
  {%- if pop is none and a2_qis | length > 0 -%}
    {{ dbt_deid._claims_config_error('attack2_population', 'must name the population table when attack2_qis is set') }}
  {%- endif -%}
  {{ return({
      'name': name, 'patients': raw.patients, 'claims': raw.claims,
      'member_id': ids.member_id, 'claim_id': ids.claim_id,
      'demographic_qis': demo_qis, 'claim_qis': claim_qis, 'hierarchies': hier,
      'dimensions': dims, 'pseudonymize': pseudo, 'key_env': key_env,
      'stigmatized_codes': stig, 'stigmatized_column': stig_col,
      'top_code': top, 'top_code_percentile': top_pct, 'truncate_percentile': trunc_pct,
      'truncate_partition': trunc_part,
      'provider_ids': prov_ids, 'provider_pattern': pattern, 'min_providers': min_prov,
      'release_columns': rel_cols, 'tau': tau, 'alpha': alpha, 'max_sup': max_sup,
      'max_sup_value': max_sup_value, 'gate_on': gate_on, 'p_max': p_max, 'power_scale': scale,
      'bootstrap': bootstrap, 'iterations': iterations, 'bootstrap_scheme': scheme,
      'pool_size': pool_size, 'seed': seed, 'variant': variant,
      'attack_iterations': attack_iterations,
      'attack_tau': attack_tau if attack_tau is not none else tau,
      'attack2_population': pop, 'attack2_qis': a2_qis,
  }) }}
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
