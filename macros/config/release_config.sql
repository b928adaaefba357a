{#- Parse and validate the release declared in var('deid_release') (or passed in).
    Every bad value raises one compiler error naming the setting. Returns a normalized dict:
    name, source, record_id, direct_identifiers, qis (list of dicts with name, level, weight,
    hierarchy, rule, cap, column), qi_names, k, tau, max_suppression, algorithm, missing_label,
    and from the release plan (at execute time; empty while parsing): combinations (every
    combination the gates verify), protected_combinations (those the suppression works on) and
    released_qis. Combinations and hierarchical QIs are expanded by the core: see
    release_plan(). -#}
{% macro release_config(release=none) -%}
  {{ return(dbt_deid.own(adapter.dispatch('release_config', 'dbt_deid'))(release)) }}
{%- endmacro %}

{% macro _config_error(setting, message) -%}
  {{ exceptions.raise_compiler_error("dbt_deid release setting '" ~ setting ~ "': " ~ message) }}
{%- endmacro %}

{% macro _is_list(value) -%}
  {{ return(value is iterable and value is not string and value is not mapping) }}
{%- endmacro %}

{#- Levenshtein distance; the Python twin is dbt_deid.settings_schema.edit_distance. -#}
{% macro _edit_distance(a, b) -%}
  {%- set ns = namespace(prev=range((b | length) + 1) | list) -%}
  {%- for i in range(1, (a | length) + 1) -%}
    {%- set cur = [i] -%}
    {%- for j in range(1, (b | length) + 1) -%}
      {%- do cur.append([ns.prev[j] + 1, cur[j - 1] + 1, ns.prev[j - 1] + (0 if a[i - 1] == b[j - 1] else 1)] | min) -%}
    {%- endfor -%}
    {%- set ns.prev = cur -%}
  {%- endfor -%}
  {{ return(ns.prev[-1]) }}
{%- endmacro %}

{#- The known name nearest to `name` within max(2, len // 3) edits (ties: sorted order), or
    none; the Python twin is dbt_deid.settings_schema.closest_name. -#}
{% macro _closest_name(name, known) -%}
  {%- set ns = namespace(best=none, d=none) -%}
  {%- for k in known | sort -%}
    {%- set d = dbt_deid._edit_distance(name | string, k) -%}
    {%- if ns.d is none or d < ns.d -%}{%- set ns.best = k -%}{%- set ns.d = d -%}{%- endif -%}
  {%- endfor -%}
  {%- if ns.best is none or ns.d > [2, ((name | string | length) / 3) | int] | max -%}{{ return(none) }}{%- endif -%}
  {{ return(ns.best) }}
{%- endmacro %}

{#- A setting's value, or its default (dbt_deid.settings_schema) when absent or null. -#}
{% macro _setting(raw, section, key) -%}
  {%- set v = raw.get(key) -%}
  {{ return(v if v is not none else dbt_deid.settings_schema().sections[section][key].get('default')) }}
{%- endmacro %}

{#- Names and types come from the one definition (dbt_deid._check_var); what is left here
    relates settings to each other. -#}
{% macro default__release_config(release) -%}
  {%- set raw = release if release is not none else dbt_deid.release_settings() -%}
  {%- if raw is none or raw is not mapping -%}
    {%- set extra = dbt_deid.current_release() -%}
    {{ dbt_deid._config_error('deid_release' if extra is none else 'deid_releases.' ~ extra, 'declare the release as a mapping in var ' ~ ('deid_release' if extra is none else 'deid_releases (key ' ~ extra ~ ')')) }}
  {%- endif -%}
  {%- do dbt_deid._check_var('release', raw) -%}
  {%- set qis = [] -%}
  {%- for name, spec0 in raw.quasi_identifiers.items() -%}
    {%- set spec = spec0 if spec0 is not none else {} -%}
    {%- set where = 'quasi_identifiers.' ~ name -%}
    {%- set level = dbt_deid._setting(spec, 'quasi_identifier', 'level') -%}
    {%- set hierarchy, rule = spec.get('hierarchy'), spec.get('rule') -%}
    {%- if hierarchy is not none and rule is not none -%}
      {{ dbt_deid._config_error(where, 'give either hierarchy or rule, not both') }}
    {%- endif -%}
    {%- if rule is not none -%}
      {%- do dbt_deid._validate_rule(where ~ '.rule', rule) -%}
      {%- if level > rule['levels'] | length -%}
        {{ dbt_deid._config_error(where ~ '.level', 'is ' ~ level ~ ' but the rule defines ' ~ (rule['levels'] | length) ~ ' levels') }}
      {%- endif -%}
    {%- endif -%}
    {%- if spec.get('derived_from') is not none and spec.derived_from not in raw.quasi_identifiers -%}
      {{ dbt_deid._config_error(where ~ '.derived_from', 'names unknown quasi-identifier ' ~ spec.derived_from) }}
    {%- endif -%}
    {%- if hierarchy is none and rule is none and level != 0 -%}
      {{ dbt_deid._config_error(where ~ '.level', 'is ' ~ level ~ ' but no hierarchy or rule is given') }}
    {%- endif -%}
    {%- do qis.append({'name': name, 'level': level, 'weight': dbt_deid._setting(spec, 'quasi_identifier', 'weight'),
                       'hierarchy': hierarchy, 'rule': rule, 'cap': spec.get('suppression_cap'), 'column': spec.get('column') or name}) -%}
  {%- endfor -%}
  {%- set qi_names = qis | map(attribute='name') | list -%}

  {%- set caps = raw.get('column_suppression_cap') -%}
  {%- if caps is mapping -%}
    {%- for col, cap in caps.items() -%}
      {%- if col not in qi_names -%}{{ dbt_deid._config_error('column_suppression_cap', 'names unknown column ' ~ col) }}{%- endif -%}
      {%- set message = dbt_deid._value_error(cap, {'type': 'fraction'}) -%}
      {%- if message is not none -%}{{ dbt_deid._config_error('column_suppression_cap.' ~ col, message) }}{%- endif -%}
    {%- endfor -%}
  {%- elif caps is not none and dbt_deid._value_error(caps, {'type': 'fraction'}) is not none -%}
    {{ dbt_deid._config_error('column_suppression_cap', 'must be a number in [0, 1] or a mapping column -> number, got ' ~ dbt_deid._describe(caps)) }}
  {%- endif -%}
  {%- for q in qis if caps is not none -%}
    {%- if caps is mapping and q.name in caps -%}{%- do q.update({'cap': caps[q.name]}) -%}
    {%- elif caps is not mapping and q.cap is none -%}{%- do q.update({'cap': caps}) -%}{%- endif -%}
  {%- endfor -%}

  {%- do dbt_deid._check_combinations(raw, qi_names) -%}
  {#- Threshold presets (dbt_deid.settings_schema; justification in dbt_deid.risk.thresholds):
      tau when none is given. -#}
  {%- set schema = dbt_deid.settings_schema() -%}
  {%- set preset = raw.get('preset') -%}
  {%- set preset_tau = schema.preset_tau[schema.preset_aliases.get(preset, preset)] if preset is not none else none -%}
  {%- set pop_k = dbt_deid._population_k(raw) -%}
  {%- set k_raw = raw.get('k') -%}
  {%- set tau = (1.0 / pop_k) if pop_k is not none else (raw.get('tau') if raw.get('tau') is not none else (preset_tau if k_raw is none else none)) -%}
  {%- if tau is none and k_raw is none -%}
    {{ dbt_deid._config_error('tau', 'give the threshold tau (k = ceil(1/tau)) or k') }}
  {%- endif -%}
  {%- if tau is not none -%}
    {%- set k = ((1.0 / tau) | round(9) | round(0, 'ceil')) | int -%}
    {%- if k_raw is not none and k_raw != k -%}
      {{ dbt_deid._config_error('k', 'is ' ~ k_raw ~ ' but tau ' ~ tau ~ ' gives k = ceil(1/tau) = ' ~ k) }}
    {%- endif -%}
  {%- else -%}
    {%- set k = k_raw -%}
    {%- set tau = 1.0 / k -%}
  {%- endif -%}
  {%- if k < 2 -%}
    {{ dbt_deid._config_error('k', 'must be >= 2 (tau < 1); got k = ' ~ k ~ ((' (population_threshold ' ~ raw.population_threshold ~ ' x sampling_fraction ' ~ raw.sampling_fraction ~ ')') if pop_k is not none else '') ~ ': with k = 1 every record is its own class') }}
  {%- endif -%}
  {%- set roles = dbt_deid._column_roles(raw, qis) -%}
  {%- set sample = raw.get('sample') -%}
  {%- if sample is not none -%}
    {%- set sample = {'fraction': sample.fraction, 'slot': dbt_deid._setting(sample, 'sample', 'slot'), 'seed': dbt_deid._setting(sample, 'sample', 'seed'), 'order': dbt_deid._setting(sample, 'sample', 'order')} -%}
    {%- if (sample.slot + 1) * sample.fraction > 1.000000001 -%}
      {{ dbt_deid._config_error('sample.slot', 'must be an integer >= 0 with (slot + 1) x fraction <= 1, got ' ~ sample.slot) }}
    {%- endif -%}
    {%- if sample.order == 'population_first' and raw.get('population_threshold') is not none -%}
      {{ dbt_deid._config_error('sample.order', 'population_first protects the whole population, so its k is the population threshold itself: give tau or k, not population_threshold with sampling_fraction (which set the k of a sample)') }}
    {%- endif -%}
  {%- endif -%}
  {{ return({
      'name': dbt_deid._setting(raw, 'release', 'name'), 'sample': sample, 'source': raw.source, 'record_id': raw.record_id,
      'direct_identifiers': roles.direct_identifiers, 'pass_through': roles.pass_through,
      'excluded': roles.excluded, 'sensitive': roles.sensitive,
      'attribute_disclosure': dbt_deid._check_attribute_disclosure(raw), 'qis': qis, 'qi_names': qi_names,
      'combinations': dbt_deid.release_plan('verified'),
      'protected_combinations': dbt_deid.release_plan('protected'),
      'released_qis': dbt_deid.release_plan('released'),
      'k': k, 'tau': tau, 'preset': preset,
      'max_suppression': raw.max_suppression, 'algorithm': dbt_deid._setting(raw, 'release', 'algorithm'),
      'missing_label': dbt_deid._setting(raw, 'release', 'missing_label'),
  }) }}
{%- endmacro %}


{#- The column lists of the roles (dbt_deid.config.column_roles is the Python twin; each a list
    of names by its type): a column has one role (El Emam et al. 2011 Table 1's variable types).
    The record id is never published and needs no other role. -#}
{% macro _column_roles(raw, qis) -%}
  {%- set owner = {} -%}
  {%- do owner.update({raw.record_id | lower: 'record_id'}) -%}
  {%- for q in qis -%}
    {%- if owner.get(q.column | lower) == 'record_id' -%}
      {{ dbt_deid._config_error('record_id', raw.record_id ~ ' cannot be a quasi-identifier') }}
    {%- endif -%}
    {%- do owner.update({q.column | lower: 'quasi_identifiers.' ~ q.name}) -%}
  {%- endfor -%}
  {%- set out = {} -%}
  {%- for role in ['direct_identifiers', 'pass_through', 'sensitive', 'excluded'] -%}
    {%- set cols = raw.get(role) or [] -%}
    {%- for col in cols -%}
      {%- set other = owner.get(col | lower) -%}
      {%- if other is not none -%}
        {{ dbt_deid._config_error(role, 'lists ' ~ col ~ ', which is already ' ~ other ~ (' (the record id is never published; it needs no other role)' if other == 'record_id' else '') ~ ': give each column one role') }}
      {%- endif -%}
      {%- do owner.update({col | lower: role}) -%}
    {%- endfor -%}
    {%- do out.update({role: cols | list}) -%}
  {%- endfor -%}
  {{ return(out) }}
{%- endmacro %}

{#- The attribute-disclosure limits, related to the sensitive columns (the Python twin is
    dbt_deid.config.check_attribute_disclosure; names and types are checked by the schema):
    {distinct_l, entropy_l, recursive_c, recursive_l, t, ordered, hierarchies} (null: not
    gated). -#}
{% macro _check_attribute_disclosure(raw) -%}
  {%- set sensitive = (raw.get('sensitive') or []) | map('lower') | list -%}
  {%- set spec = raw.get('attribute_disclosure') or {} -%}
  {%- set models = [] -%}
  {%- for m in ['distinct_l', 'entropy_l', 'recursive_c', 't'] -%}{%- if spec.get(m) is not none -%}{%- do models.append(m) -%}{%- endif -%}{%- endfor -%}
  {%- if sensitive and not models -%}
    {{ dbt_deid._config_error('attribute_disclosure', 'sensitive columns are declared but no model gates them; set distinct_l, entropy_l, recursive_c with recursive_l, or t (or make the columns pass_through if an adversary could not learn anything from them)') }}
  {%- endif -%}
  {%- if models and not sensitive -%}
    {{ dbt_deid._config_error('attribute_disclosure', 'no sensitive column to gate; list them under sensitive') }}
  {%- endif -%}
  {%- if (spec.get('recursive_c') is none) != (spec.get('recursive_l') is none) -%}
    {{ dbt_deid._config_error('attribute_disclosure', 'give recursive_c and recursive_l together (recursive (c, l)-diversity)') }}
  {%- endif -%}
  {%- set ordered = (spec.get('ordered') or []) | map('lower') | list -%}
  {%- set hierarchies = {} -%}
  {%- for c, h in (spec.get('hierarchies') or {}).items() -%}{%- do hierarchies.update({c | lower: h}) -%}{%- endfor -%}
  {%- for key, cols in [('ordered', ordered), ('hierarchies', hierarchies.keys() | list)] -%}
    {%- for col in cols -%}
      {%- if col not in sensitive -%}{{ dbt_deid._config_error('attribute_disclosure.' ~ key, "'" ~ col ~ "' is not a sensitive column") }}{%- endif -%}
    {%- endfor -%}
    {%- if cols and spec.get('t') is none -%}{{ dbt_deid._config_error('attribute_disclosure.' ~ key, 'a ground distance needs t (t-closeness)') }}{%- endif -%}
  {%- endfor -%}
  {%- for col in ordered -%}
    {%- if col in hierarchies -%}{{ dbt_deid._config_error('attribute_disclosure', "'" ~ col ~ "' is both ordered and hierarchical; give one distance") }}{%- endif -%}
  {%- endfor -%}
  {#- the remedy (dbt_deid.attribute_remedy.check_remedy is the Python twin) -#}
  {%- set remedy = spec.get('remedy') or 'none' -%}
  {%- if remedy == 'suppress' -%}
    {%- if not models -%}{{ dbt_deid._config_error('attribute_disclosure.remedy', 'suppress needs a model to remedy (set distinct_l, entropy_l, recursive_c with recursive_l, or t)') }}{%- endif -%}
    {%- if (raw.get('generalization') or {}).get('suppression') == 'records' -%}{{ dbt_deid._config_error('attribute_disclosure.remedy', 'suppress works with cell suppression, not generalization.suppression: records') }}{%- endif -%}
    {%- if raw.get('algorithm') not in [none, 'combinations', 'complete'] -%}{{ dbt_deid._config_error('attribute_disclosure.remedy', 'suppress works with algorithm combinations or complete, not ' ~ raw.get('algorithm')) }}{%- endif -%}
    {%- if hierarchies -%}{{ dbt_deid._config_error('attribute_disclosure.remedy', 'suppress supports t-closeness under the equal and ordered distances only; remove hierarchies or the remedy') }}{%- endif -%}
  {%- endif -%}
  {{ return({'distinct_l': spec.get('distinct_l'), 'entropy_l': spec.get('entropy_l'), 'recursive_c': spec.get('recursive_c'),
             'recursive_l': spec.get('recursive_l'), 't': spec.get('t'), 'ordered': ordered, 'hierarchies': hierarchies,
             'remedy': remedy}) }}
{%- endmacro %}

{#- Explicit combinations name declared QIs (parse time, before any work), and every QI is
    protected: in a combination, or a level of a hierarchical QI (El Emam et al. 2011 Table 4: covered by
    its family's verified levels and propagation). The generated combinations of hierarchical
    QIs are expanded by the core in deid_release_plan. -#}
{% macro _check_combinations(raw, qi_names) -%}
  {%- set covered = [] -%}
  {%- for fam, spec in (raw.get('hierarchical_qis') or {}).items() -%}
    {%- if spec.levels | length == 0 -%}
      {{ dbt_deid._config_error('hierarchical_qis.' ~ fam ~ '.levels', 'must be a non-empty list of QI names, finest first') }}
    {%- endif -%}
    {%- set w = 'hierarchical_qis.' ~ fam -%}
    {%- if spec.levels | unique(case_sensitive=true) | list | length != spec.levels | length -%}{{ dbt_deid._config_error(w ~ '.levels', 'repeats a level') }}{%- endif -%}
    {%- for key in ['adversary_level', 'analyst_level'] -%}
      {%- set v = spec.get(key, 0) -%}
      {%- if not ((v is string and v in spec.levels) or (v is integer and v is not boolean and v >= 0 and v < spec.levels | length)) -%}
        {{ dbt_deid._config_error(w ~ '.' ~ key, 'must be a level name or rank 0..' ~ (spec.levels | length - 1)) }}
      {%- endif -%}
    {%- endfor -%}
    {%- for coarse, fine in (spec.generalizes or {}).items() -%}
      {%- if coarse not in spec.levels or fine not in spec.levels or spec.levels.index(coarse) <= spec.levels.index(fine) -%}
        {{ dbt_deid._config_error(w ~ '.generalizes', 'links ' ~ coarse ~ ' -> ' ~ fine ~ ': both must be levels, the first coarser') }}
      {%- endif -%}
    {%- endfor -%}
    {%- for lv in spec.levels -%}
      {%- if lv not in qi_names -%}
        {{ dbt_deid._config_error('hierarchical_qis.' ~ fam ~ '.levels', 'names unknown quasi-identifier ' ~ lv) }}
      {%- endif -%}
      {%- do covered.append(lv) -%}
    {%- endfor -%}
  {%- endfor -%}
  {%- set combos = raw.get('combinations') -%}
  {%- if combos is none -%}
    {%- set demo = raw.get('demographics') -%}
    {%- for q in (demo if demo is not none else qi_names) -%}
      {%- if q not in qi_names -%}{{ dbt_deid._config_error('demographics', 'names unknown quasi-identifier ' ~ q) }}{%- endif -%}
      {%- do covered.append(q) -%}
    {%- endfor -%}
  {%- else -%}
    {%- if combos | length == 0 -%}
      {{ dbt_deid._config_error('combinations', 'must be a non-empty list of lists of QI names') }}
    {%- endif -%}
    {%- for c in combos -%}
      {%- set where = 'combinations[' ~ loop.index ~ ']' -%}
      {%- if not dbt_deid._is_list(c) or c | length == 0 -%}
        {{ dbt_deid._config_error(where, 'must be a non-empty list of QI names, got ' ~ dbt_deid._describe(c)) }}
      {%- endif -%}
      {%- for col in c -%}
        {%- if col not in qi_names -%}
          {{ dbt_deid._config_error(where, "names unknown column '" ~ col ~ "'; declared quasi-identifiers are " ~ qi_names | join(', ')) }}
        {%- endif -%}
        {%- do covered.append(col) -%}
      {%- endfor -%}
      {%- if c | unique | list | length != c | length -%}
        {{ dbt_deid._config_error(where, 'repeats a column: ' ~ c | join(', ')) }}
      {%- endif -%}
    {%- endfor -%}
  {%- endif -%}
  {%- set unprotected = [] -%}
  {%- for q in qi_names -%}{%- if q not in covered -%}{%- do unprotected.append(q) -%}{%- endif -%}{%- endfor -%}
  {%- if unprotected | length > 0 -%}
    {{ dbt_deid._config_error('combinations', 'quasi-identifier(s) ' ~ unprotected | join(', ') ~ ' are released but in no combination, so nothing would protect them; add them to a combination (or make them pass_through if they are not quasi-identifiers)') }}
  {%- endif -%}
{%- endmacro %}

{#- k from the population (El Emam et al. 2012 equation 3): k = ceil(alpha x F_j) with F_j the release's
    population_threshold (smallest population class allowed, risk 1/F_j) and alpha its
    sampling_fraction in (0, 1]. Assumes a large sample (f_j = alpha F_j holds for large classes
    only; `population_estimator: truncated_poisson` uses the truncated-Poisson estimate instead,
    dbt_deid.truncated_poisson_k). None when population_threshold is absent. Mirrors
    dbt_deid.config._population_k. -#}
{% macro _population_k(raw) -%}
  {%- set f = raw.get('population_threshold') -%}
  {%- if f is none -%}{{ return(none) }}{%- endif -%}
  {%- if raw.get('tau') is not none or raw.get('k') is not none -%}
    {{ dbt_deid._config_error('population_threshold', 'give either population_threshold with sampling_fraction, or tau / k, not both') }}
  {%- endif -%}
  {%- if raw.get('sampling_fraction') is none -%}
    {{ dbt_deid._config_error('sampling_fraction', 'is required with population_threshold (k = ceil(sampling_fraction x population_threshold))') }}
  {%- endif -%}
  {%- if dbt_deid._setting(raw, 'release', 'population_estimator') == 'truncated_poisson' -%}{{ return(dbt_deid.truncated_poisson_k(f, raw.sampling_fraction)) }}{%- endif -%}
  {%- set k = ((raw.sampling_fraction * f) | round(9) | round(0, 'ceil')) | int -%}
  {{ return([k, 1] | max) }}
{%- endmacro %}

{#- The smallest sample class size s whose truncated-Poisson estimate of its population class,
    s + (1 - alpha) mu(s) / alpha with mu(s) the root of mu / (1 - e^-mu) = s (0 for s = 1),
    reaches the population threshold F_j (El Emam and Dankar 2008, as cited by El Emam et al.
    2012). The same Newton iterations as dbt_deid.truncated_poisson.truncated_poisson_mean;
    at most F_j. -#}
{% macro truncated_poisson_k(threshold, alpha) -%}
  {%- set ns = namespace(k=none) -%}
  {%- for s in range(1, threshold + 1) -%}
    {%- if ns.k is none -%}
      {%- set it = namespace(mu=(s * 1.0)) -%}
      {%- if s > 1 -%}
        {%- for _ in range(60) -%}
          {%- set e = 2.718281828459045 ** (0 - it.mu) -%}
          {%- set it.mu = it.mu - (it.mu - s * (1.0 - e)) / (1.0 - s * e) -%}
        {%- endfor -%}
      {%- else -%}
        {%- set it.mu = 0.0 -%}
      {%- endif -%}
      {%- if s + (1.0 - alpha) * it.mu / alpha >= threshold - 0.000000001 -%}{%- set ns.k = s -%}{%- endif -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(ns.k if ns.k is not none else threshold) }}
{%- endmacro %}

{#- The levels of a rule (names and types: dbt_deid._check_section; the sections by rule type). -#}
{% macro _validate_rule(where, rule) -%}
  {%- if rule.levels | length == 0 -%}
    {{ dbt_deid._config_error(where ~ '.levels', 'must be a non-empty list') }}
  {%- endif -%}
  {%- for lv in rule.levels -%}
    {%- set w = where ~ '.levels[' ~ loop.index ~ ']' -%}
    {%- if lv is not mapping -%}{{ dbt_deid._config_error(w, 'must be a mapping, got ' ~ dbt_deid._describe(lv)) }}{%- endif -%}
    {%- do dbt_deid._check_section('release', w, lv, dbt_deid.settings_schema().rule_level_section[rule.type]) -%}
    {%- if rule.type == 'interval' and lv.get('breaks') is not none -%}
      {%- for b in lv.breaks -%}
        {%- if not (b is number and b is not boolean and b == b and (loop.first or b > loop.previtem)) -%}
          {{ dbt_deid._config_error(w ~ '.breaks', 'must be a non-empty list of increasing numbers') }}
        {%- endif -%}
      {%- endfor -%}
      {%- if lv.breaks | length == 0 -%}{{ dbt_deid._config_error(w ~ '.breaks', 'must be a non-empty list of increasing numbers') }}{%- endif -%}
    {%- elif rule.type == 'interval' and lv.get('width') is none -%}
      {{ dbt_deid._config_error(w ~ '.width', 'must be a positive number (or give breaks), got null') }}
    {%- endif -%}
  {%- endfor -%}
{%- endmacro %}

{#- The relation the release reads: ref(name) or source(source_name, table). -#}
{% macro release_source(cfg) -%}
  {{ return(dbt_deid.own(adapter.dispatch('release_source', 'dbt_deid'))(cfg)) }}
{%- endmacro %}

{% macro default__release_source(cfg) -%}
  {%- if dbt_deid._in_test() -%}
    {#- a test reads the source without ref()/source() (no dependency), like release_plan: see
        there; while parsing a placeholder -#}
    {%- if not execute -%}{{ return(api.Relation.create(identifier=(cfg.source.table if cfg.source is mapping else cfg.source))) }}{%- endif -%}
    {%- set rel = dbt_deid._graph_relation(cfg.source) -%}
    {%- if rel is not none -%}{{ return(rel) }}{%- endif -%}
  {%- endif -%}
  {%- if cfg.source is mapping -%}
    {{ return(source(cfg.source.source_name, cfg.source.table)) }}
  {%- else -%}
    {{ return(ref(cfg.source)) }}
  {%- endif -%}
{%- endmacro %}

{#- True while rendering one of the package's own data tests (declared in its YAML: the gate
    tests on deid_release_gate, deid_published, ...): the models they test already depend on
    the release plan and the source, so the test need not (see release_plan). A test a project
    declares (on a seed of gate fixtures, say) keeps the ref(), so it runs after the plan is
    built. (attached_node is set only after parsing, so the package name decides; the gate
    tests of an extra release, declared in the project by `add-release`, are known by the model
    they test, `<release>__deid_...`: dbt_deid.current_release().) -#}
{% macro _in_test() -%}
  {{ return(model is mapping and model.get('resource_type') == 'test'
            and (model.get('package_name') == 'dbt_deid' or dbt_deid.current_release() is not none)) }}
{%- endmacro %}

{#- The relation of a model/seed name or a {source_name, table} source, from the graph (no
    dependency recorded); none when not found. -#}
{% macro _graph_relation(name) -%}
  {%- if name is mapping -%}
    {%- for node in graph.sources.values() -%}
      {%- if node.source_name == name.source_name and node.name == name.table -%}
        {{ return(api.Relation.create(database=node.database, schema=node.schema, identifier=node.identifier)) }}
      {%- endif -%}
    {%- endfor -%}
    {{ return(none) }}
  {%- endif -%}
  {%- set found = [] -%}
  {%- for node in graph.nodes.values() -%}
    {%- if node.name == name and node.resource_type in ['model', 'seed', 'snapshot'] -%}
      {%- do found.append(node) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- if found | length != 1 -%}{{ return(none) }}{%- endif -%}
  {{ return(api.Relation.create(database=found[0].database, schema=found[0].schema, identifier=found[0].alias or found[0].name)) }}
{%- endmacro %}

{#- A quoted identifier for any name (a column of the source, a QI, a hierarchy header): the
    adapter's quote character around the name with that character doubled inside, so a name is
    always data, never SQL (issue 13). Plain lower-case names that are not reserved words stay
    unquoted (readable SQL; engines that fold unquoted names to upper case still find them). A
    NUL character, which no engine allows in a name, is an error. -#}
{% macro ident(name) -%}
  {{ return(dbt_deid.own(adapter.dispatch('ident', 'dbt_deid'))(name)) }}
{%- endmacro %}

{% macro default__ident(name) -%}
  {%- set name = name | string -%}
  {%- do dbt_deid._reject_nul(name, 'name') -%}
  {%- if modules.re.match('^[a-z_][a-z0-9_]*$', name) and name not in dbt_deid._reserved_words() -%}
    {{ return(name) }}
  {%- endif -%}
  {%- set probe = adapter.quote('x') -%}
  {%- set open, close = probe[0], probe[-1] -%}
  {{ return(open ~ name.replace(close, close ~ close) ~ close) }}
{%- endmacro %}

{#- BigQuery: backquoted names escape with a backslash. -#}
{% macro bigquery__ident(name) -%}
  {%- set name = name | string -%}
  {%- do dbt_deid._reject_nul(name, 'name') -%}
  {%- if modules.re.match('^[a-z_][a-z0-9_]*$', name) and name not in dbt_deid._reserved_words() -%}
    {{ return(name) }}
  {%- endif -%}
  {{ return('`' ~ name.replace('\\', '\\\\').replace('`', '\\`').replace('\n', '\\n').replace('\r', '\\r') ~ '`') }}
{%- endmacro %}

{#- Words reserved by DuckDB, PostgreSQL or Spark SQL (ANSI mode): a column with such a name is
    quoted even when it is plain lower case. -#}
{% macro _reserved_words() -%}
  {{ return(['all', 'analyse', 'analyze', 'and', 'any', 'array', 'as', 'asc', 'asymmetric',
    'authorization', 'between', 'binary', 'both', 'by', 'case', 'cast', 'check', 'collate',
    'collation', 'column', 'concurrently', 'constraint', 'create', 'cross', 'cube',
    'current_catalog', 'current_date', 'current_role', 'current_schema', 'current_time',
    'current_timestamp', 'current_user', 'default', 'deferrable', 'delete', 'desc', 'describe',
    'distinct', 'do', 'drop', 'else', 'end', 'escape', 'except', 'exists', 'false', 'fetch',
    'filter', 'for', 'foreign', 'freeze', 'from', 'full', 'grant', 'group', 'grouping',
    'having', 'ilike', 'in', 'initially', 'inner', 'insert', 'intersect', 'interval', 'into',
    'is', 'isnull', 'join', 'lambda', 'lateral', 'leading', 'left', 'like', 'limit',
    'localtime', 'localtimestamp', 'natural', 'not', 'notnull', 'null', 'offset', 'on', 'only',
    'or', 'order', 'outer', 'over', 'overlaps', 'partition', 'pivot', 'pivot_longer',
    'pivot_wider', 'placing', 'primary', 'qualify', 'range', 'references', 'returning',
    'right', 'rollup', 'row', 'rows', 'select', 'session_user', 'set', 'show', 'similar',
    'some', 'summarize', 'symmetric', 'system_user', 'table', 'tablesample', 'then', 'to',
    'trailing', 'true', 'union', 'unique', 'unpivot', 'update', 'user', 'using', 'values',
    'variadic', 'verbose', 'when', 'where', 'window', 'with']) }}
{%- endmacro %}

{% macro _reject_nul(text, what) -%}
  {%- if modules.re.search('\x00', text) -%}
    {{ exceptions.raise_compiler_error("dbt_deid: a " ~ what ~ " contains a NUL character, which SQL cannot hold: " ~ (text | replace('\x00', '\\0'))) }}
  {%- endif -%}
{%- endmacro %}

{#- A string literal for any value (names, labels, settings): single quotes doubled (standard
    SQL; PostgreSQL with standard_conforming_strings, DuckDB, Snowflake's '' too). Engines whose
    literals read backslash escapes (Spark, Databricks, BigQuery, Snowflake) escape
    backslashes, quotes and line breaks instead. A NUL character is an error. -#}
{% macro literal(value) -%}
  {{ return(dbt_deid.own(adapter.dispatch('literal', 'dbt_deid'))(value)) }}
{%- endmacro %}

{% macro default__literal(value) -%}
  {%- set text = value | string -%}
  {%- do dbt_deid._reject_nul(text, 'value') -%}
  {{ return("'" ~ text.replace("'", "''") ~ "'") }}
{%- endmacro %}

{% macro _backslash_literal(value) -%}
  {%- set text = value | string -%}
  {%- do dbt_deid._reject_nul(text, 'value') -%}
  {{ return("'" ~ text.replace('\\', '\\\\').replace("'", "\\'").replace('\n', '\\n').replace('\r', '\\r') ~ "'") }}
{%- endmacro %}

{% macro spark__literal(value) -%}{{ return(dbt_deid._backslash_literal(value)) }}{%- endmacro %}
{% macro databricks__literal(value) -%}{{ return(dbt_deid._backslash_literal(value)) }}{%- endmacro %}
{% macro bigquery__literal(value) -%}{{ return(dbt_deid._backslash_literal(value)) }}{%- endmacro %}
{% macro snowflake__literal(value) -%}{{ return(dbt_deid._backslash_literal(value)) }}{%- endmacro %}

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
    list of [source, target]. Empty when not executing (parse time).

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
  {%- set rows = run_query("select kind, item, position, column_name from " ~ plan ~ " order by kind, item, position").rows -%}
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
  {{ return({'protected': protected, 'verified': verified, 'released': [qi_names]}) }}
{%- endmacro %}

{#- What the release publishes from: the source relation, or, with `sample: {fraction, slot, seed}`,
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
  {%- set src = dbt_deid.release_source(cfg) -%}
  {%- if cfg.sample is none -%}{{ return(src) }}{%- endif -%}
  {{ return('(select * from ' ~ src ~ ' where ' ~ dbt_deid.sample_condition(cfg) ~ ')') }}
{%- endmacro %}

{#- What the release's generalization and suppression run on: dbt_deid.release_input (the sample
    is drawn first, then protected: every class of the published file has k records), or, with
    `sample.order: population_first`, the whole source: seed 000's order, "generalization and
    suppression were performed on the full population DAD and the PUMF samples drawn from that"
    (El Emam et al. 2011, Attack 3; every population class at least k), the slot being drawn
    from the suppressed records by the gate view deid_release_gate. -#}
{% macro protected_input(cfg) -%}
  {%- if cfg.sample is not none and cfg.sample.order == 'population_first' -%}{{ return(dbt_deid.release_source(cfg)) }}{%- endif -%}
  {{ return(dbt_deid.release_input(cfg)) }}
{%- endmacro %}

{#- The SQL condition that keeps the records of the release's sample slot: the first 8 hex
    digits of md5('<seed>:' || record id) in [slot x fraction, (slot + 1) x fraction) of 2^32
    (dbt_deid.sampling.sample_mask is its Python twin). -#}
{% macro sample_condition(cfg) -%}
  {%- set scale = 4294967296 -%}
  {%- set lo = (cfg.sample.slot * cfg.sample.fraction * scale) | round(0, 'floor') | int -%}
  {%- set hi = ((cfg.sample.slot + 1) * cfg.sample.fraction * scale) | round(0, 'floor') | int -%}
  {%- set h = 'substr(' ~ dbt.hash(dbt.concat([dbt_deid.literal(cfg.sample.seed ~ ':'), 'cast(' ~ dbt_deid.ident(cfg.record_id) ~ ' as ' ~ dbt.type_string() ~ ')'])) ~ ', 1, 8)' -%}
  {{ return(h ~ " >= '" ~ ('%08x' | format(lo)) ~ "'" ~ ((" and " ~ h ~ " < '" ~ ('%08x' | format(hi)) ~ "'") if hi < scale else '')) }}
{%- endmacro %}

{#- True when the data checks (empty source, record ids, hierarchy values, column roles, ...)
    run: when building (`run`, `build`, `test`, ...), not while parsing nor under the commands
    that only compile or list (`compile`, `docs generate`, `ls`), which build nothing and must
    work on any warehouse, fresh or built with `--empty`. -#}
{% macro run_data_checks() -%}
  {{ return(execute and not dbt_deid._compile_only_command()) }}
{%- endmacro %}

{#- False when an introspective query on `relation` must be skipped: while parsing,
    or, under a command that only compiles or lists (`compile`, `docs generate`, `ls`), when
    the relation has not been built yet (a fresh warehouse: the compiled SQL is then a preview
    without the checks, which run again when the release is built). Commands that build always
    run the checks: a missing relation there fails as before (fail closed). -#}
{% macro can_inspect(relation) -%}
  {%- if not execute -%}{{ return(false) }}{%- endif -%}
  {%- if not dbt_deid._compile_only_command() -%}{{ return(true) }}{%- endif -%}
  {%- set rel = relation if relation is not string else none -%}
  {%- if rel is none or rel.identifier is not defined -%}{{ return(true) }}{%- endif -%}
  {{ return(adapter.get_relation(database=rel.database, schema=rel.schema, identifier=rel.identifier) is not none) }}
{%- endmacro %}
