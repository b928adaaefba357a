{#- SQL of the claims release's preprocessing (El Emam et al. 2012, "Preprocessing of Claims Data"), the SQL
    the core documents in dbt_deid.longitudinal.preprocess: every step here returns exactly the
    core's StepReport counts (percentiles are discrete, percentile_disc = numpy inverted_cdf).
    Each public macro is dispatched; default__ implementations are written for DuckDB. -#}

{#- Run-time checks of the two inputs, before anything is built: required columns, neither
    table empty, member ids unique and present in the patients, claim ids unique and present,
    every claim's member among the patients, the stigmatized-codes relation has a `code`
    column. One error naming the model, table and column; counts only, never values. -#}
{% macro assert_claims_inputs(cfg) -%}
  {{ return(dbt_deid.own(adapter.dispatch('assert_claims_inputs', 'dbt_deid'))(cfg)) }}
{%- endmacro %}

{% macro default__assert_claims_inputs(cfg) -%}
  {%- set model = "model " ~ this.identifier -%}
  {%- set rels = {'patients': dbt_deid.claims_relation(cfg.patients), 'claims': dbt_deid.claims_relation(cfg.claims)} -%}
  {#- not under compile/docs/ls (dbt_deid.run_data_checks), nor under `--empty`: nothing to check -#}
  {%- if not dbt_deid.run_data_checks() or flags.EMPTY -%}{{ return(none) }}{%- endif -%}
  {%- set required = {
      'patients': [cfg.member_id] + cfg.demographic_qis + cfg.pseudonymize.patients + cfg.top_code.patients + cfg.release_columns.patients,
      'claims': [cfg.member_id, cfg.claim_id] + cfg.claim_qis + cfg.pseudonymize.claims + cfg.top_code.claims
                + cfg.provider_ids + cfg.provider_pattern + cfg.release_columns.claims
                + cfg.truncate_partition
                + ([cfg.stigmatized_column] if cfg.stigmatized_codes is not none else []),
  } -%}
  {%- for t in ['patients', 'claims'] -%}
    {%- set names = adapter.get_columns_in_relation(rels[t]) | map(attribute='name') | list -%}
    {%- for c in required[t] | unique -%}
      {%- if c not in names -%}
        {{ exceptions.raise_compiler_error(model ~ ": the claims release's " ~ t ~ " table (" ~ rels[t] ~ ") lacks column '" ~ c ~ "' (columns: " ~ names | join(', ') ~ ")") }}
      {%- endif -%}
    {%- endfor -%}
  {%- endfor -%}
  {%- set m = dbt_deid.ident(cfg.member_id) -%}
  {%- set cid = dbt_deid.ident(cfg.claim_id) -%}
  {%- set row = run_query(
      "select (select count(*) from " ~ rels.patients ~ "), "
      ~ "(select count(*) - count(distinct " ~ m ~ ") from " ~ rels.patients ~ "), "
      ~ "(select count(*) from " ~ rels.patients ~ " where " ~ m ~ " is null), "
      ~ "(select count(*) from " ~ rels.claims ~ "), "
      ~ "(select count(*) - count(distinct " ~ cid ~ ") from " ~ rels.claims ~ "), "
      ~ "(select count(*) from " ~ rels.claims ~ " where " ~ cid ~ " is null or " ~ m ~ " is null), "
      ~ "(select count(*) from " ~ rels.claims ~ " as c where not exists (select 1 from " ~ rels.patients ~ " as p where p." ~ m ~ " = c." ~ m ~ "))"
  ).rows[0] -%}
  {%- set problems = [
      (row[0] == 0, "the patients table (" ~ rels.patients ~ ") is empty"),
      (row[1] > 0, "the patients table repeats " ~ cfg.member_id ~ " (" ~ row[1] ~ " duplicate rows); one row per patient is required"),
      (row[2] > 0, "the patients table has " ~ row[2] ~ " row(s) with an empty " ~ cfg.member_id),
      (row[3] == 0, "the claims table (" ~ rels.claims ~ ") is empty"),
      (row[4] > 0, "the claims table repeats " ~ cfg.claim_id ~ " (" ~ row[4] ~ " duplicate rows)"),
      (row[5] > 0, "the claims table has " ~ row[5] ~ " row(s) with an empty " ~ cfg.claim_id ~ " or " ~ cfg.member_id),
      (row[6] > 0, row[6] ~ " claim(s) belong to no patient of the patients table (column " ~ cfg.member_id ~ ")"),
  ] -%}
  {%- for bad, message in problems if bad -%}
    {{ exceptions.raise_compiler_error(model ~ ": " ~ message) }}
  {%- endfor -%}
  {%- if cfg.stigmatized_codes is not none -%}
    {%- set rel = dbt_deid.claims_relation(cfg.stigmatized_codes) -%}
    {%- set names = adapter.get_columns_in_relation(rel) | map(attribute='name') | list -%}
    {%- if 'code' not in names -%}
      {{ exceptions.raise_compiler_error(model ~ ": the stigmatized codes (" ~ rel ~ ") need a column 'code' (columns: " ~ names | join(', ') ~ ")") }}
    {%- endif -%}
  {%- endif -%}
{%- endmacro %}

{#- Every declared hierarchy in long form. Each relation has level_0 (the original value) and
    level_1 .. level_h; columns are read at execution. -#}
{% macro claims_hierarchy_sql(cfg) -%}
  {{ return(dbt_deid.own(adapter.dispatch('claims_hierarchy_sql', 'dbt_deid'))(cfg)) }}
{%- endmacro %}

{% macro default__claims_hierarchy_sql(cfg) -%}
  {%- set parts = [] -%}
  {%- for q, name in cfg.hierarchies.items() -%}
    {%- set rel = dbt_deid.claims_relation(name) -%}
    {%- if not dbt_deid.can_inspect(rel) -%}{%- continue -%}{%- endif -%}
    {%- set names = adapter.get_columns_in_relation(rel) | map(attribute='name') | list -%}
    {%- if names | length == 0 -%}
      {{ exceptions.raise_compiler_error("model " ~ this.identifier ~ ": hierarchy '" ~ (name.table if name is mapping else name) ~ "' of column '" ~ q ~ "' is missing: " ~ rel ~ " does not exist in the warehouse (or has no columns); load the seed (dbt seed) or build the model first") }}
    {%- endif -%}
    {%- set levels = [] -%}
    {%- for i in range(names | length) if ('level_' ~ i) in names -%}{%- do levels.append(i) -%}{%- endfor -%}
    {%- if levels | length < 2 or levels != range(levels | length) | list -%}
      {{ exceptions.raise_compiler_error("model " ~ this.identifier ~ ": the hierarchy of " ~ q ~ " (" ~ rel ~ ") needs columns level_0, level_1, ... (columns: " ~ names | join(', ') ~ ")") }}
    {%- endif -%}
    {%- for i in levels -%}
      {%- do parts.append("select " ~ dbt_deid.literal(q) ~ " as qi_name, " ~ i ~ " as level, cast(level_0 as varchar) as original_value, cast(level_" ~ i ~ " as varchar) as generalized_value from " ~ rel ~ " where level_0 is not null") -%}
    {%- endfor -%}
  {%- endfor -%}
  {%- if parts | length == 0 -%}
    {#- a fresh warehouse under compile/docs/ls: a typed empty preview -#}
    {{ return("select cast(null as varchar) as qi_name, 0 as level, cast(null as varchar) as original_value, cast(null as varchar) as generalized_value where 1 = 0") }}
  {%- endif -%}
  {{ return(parts | join('\nunion all\n')) }}
{%- endmacro %}

{#- Top-coding (El Emam et al. 2012, "Top-Coding"): least(value, threshold) for the table's top_code
    columns, thresholds from deid_claims_top_code_thresholds; other columns unchanged. -#}
{% macro claims_top_code_sql(cfg, table, relation, thresholds) -%}
  {{ return(dbt_deid.own(adapter.dispatch('claims_top_code_sql', 'dbt_deid'))(cfg, table, relation, thresholds)) }}
{%- endmacro %}

{#- Not dbt_utils.star(except=...): the top-coded columns are replaced in place, so the column order of the input is kept. -#}
{% macro default__claims_top_code_sql(cfg, table, relation, thresholds) -%}
  {%- set cols = cfg.top_code[table] -%}
  {%- if cols | length == 0 -%}
    {{ return("select * from " ~ relation) }}
  {%- endif -%}
  {%- set names = adapter.get_columns_in_relation(relation) | map(attribute='name') | list if execute else [] -%}
  {%- set exprs = [] -%}
  {%- for c in names -%}
    {%- if c in cols -%}
      {%- do exprs.append("case when t." ~ dbt_deid.ident(c) ~ " > (select threshold from " ~ thresholds ~ " where table_name = " ~ dbt_deid.literal(table) ~ " and column_name = " ~ dbt_deid.literal(c) ~ ") then cast((select threshold from " ~ thresholds ~ " where table_name = " ~ dbt_deid.literal(table) ~ " and column_name = " ~ dbt_deid.literal(c) ~ ") as " ~ (adapter.get_columns_in_relation(relation) | selectattr('name', 'equalto', c) | first).data_type ~ ") else t." ~ dbt_deid.ident(c) ~ " end as " ~ dbt_deid.ident(c)) -%}
    {%- else -%}
      {%- do exprs.append("t." ~ dbt_deid.ident(c)) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return("select " ~ (exprs | join(', ') if exprs | length > 0 else '*') ~ " from " ~ relation ~ " as t") }}
{%- endmacro %}

{#- Provider suppression (El Emam et al. 2012, "Suppression of Provider, Vendor, and PCP Identifiers"):
    for each id column, NULL where fewer than min_providers distinct ids share the claim's
    treatment pattern (missing pattern values are one value; counted in the data, which can
    only under-estimate the providers in the whole system: conservative). -#}
{% macro claims_provider_suppression_sql(cfg, relation) -%}
  {{ return(dbt_deid.own(adapter.dispatch('claims_provider_suppression_sql', 'dbt_deid'))(cfg, relation)) }}
{%- endmacro %}

{#- Not dbt_utils.star(except=...): the id columns are replaced in place, so the column order of the input is kept. -#}
{% macro default__claims_provider_suppression_sql(cfg, relation) -%}
  {%- if cfg.provider_ids | length == 0 -%}
    {{ return("select * from " ~ relation) }}
  {%- endif -%}
  {%- set pattern = [] -%}
  {%- for c in cfg.provider_pattern -%}{%- do pattern.append(dbt_deid.ident(c)) -%}{%- endfor -%}
  {%- set names = adapter.get_columns_in_relation(relation) | map(attribute='name') | list if execute else [] -%}
  {%- set exprs = [] -%}
  {%- for c in names -%}
    {%- if c in cfg.provider_ids -%}
      {%- do exprs.append("case when g." ~ dbt_deid.ident('n__' ~ c) ~ " < " ~ cfg.min_providers ~ " then null else t." ~ dbt_deid.ident(c) ~ " end as " ~ dbt_deid.ident(c)) -%}
    {%- else -%}
      {%- do exprs.append("t." ~ dbt_deid.ident(c)) -%}
    {%- endif -%}
  {%- endfor -%}
  {%- set counts = [] -%}
  {%- for c in names if c in cfg.provider_ids -%}
    {%- do counts.append("count(distinct " ~ dbt_deid.ident(c) ~ ") as " ~ dbt_deid.ident('n__' ~ c)) -%}
  {%- endfor -%}
with g as (
    select {{ pattern | join(', ') }}, {{ counts | join(', ') if counts | length > 0 else '1 as n__0' }}
    from {{ relation }}
    group by {{ pattern | join(', ') }}
)
select {{ exprs | join(', ') if exprs | length > 0 else '*' }}
from {{ relation }} as t
join g on {% for p in pattern %}t.{{ p }} is not distinct from g.{{ p }}{% if not loop.last %} and {% endif %}{% endfor %}
{%- endmacro %}

{#- Truncation of claims (El Emam et al. 2012, "Truncation of Claims"): keep each patient's lowest-scoring
    claims up to cap = percentile_disc(truncate_percentile) of claims per patient (claim score =
    sum over claim QIs of -log2(count of the claim's value / claims); missing is a value; ties:
    smaller claim id kept). With truncate_partition (e.g. [year], as the HHP release: its
    ClaimsTruncated flag is per member and year) the claims are counted and truncated per
    patient and partition value, with one cap per partition value. -#}
{% macro claims_truncate_sql(cfg, relation) -%}
  {{ return(dbt_deid.own(adapter.dispatch('claims_truncate_sql', 'dbt_deid'))(cfg, relation)) }}
{%- endmacro %}

{% macro default__claims_truncate_sql(cfg, relation) -%}
  {%- set m = dbt_deid.ident(cfg.member_id) -%}
  {%- set parts = [] -%}
  {%- for c in cfg.truncate_partition -%}{%- do parts.append(dbt_deid.ident(c)) -%}{%- endfor -%}
  {%- set names = adapter.get_columns_in_relation(relation) | map(attribute='name') | list if execute else [] -%}
with per_group as (
    select {% for p in parts %}{{ p }}, {% endfor %}count(*) as n from {{ relation }} group by {% for p in parts %}{{ p }}, {% endfor %}{{ m }}
),
caps as (
    select {% for p in parts %}{{ p }}, {% endfor %}percentile_disc({{ cfg.truncate_percentile / 100 }}) within group (order by n) as cap__
    from per_group{% if parts | length > 0 %} group by {{ parts | join(', ') }}{% endif %}
),
scored as (
    select t.*,
        {%- for q in cfg.claim_qis %}
        -{{ dbt_deid.log2_sql('cast(count(*) over (partition by t.' ~ dbt_deid.ident(q) ~ ') as ' ~ dbt_deid.type_double() ~ ') / count(*) over ()') }}{% if not loop.last %} +{% endif %}
        {%- endfor %} as claim_score__
    from {{ relation }} as t
),
ranked as (
    select scored.*, row_number() over (partition by {{ m }}{% for p in parts %}, {{ p }}{% endfor %} order by claim_score__, {{ dbt_deid.ident(cfg.claim_id) }}) as claim_rank__
    from scored
)
select {% for c in names %}r.{{ dbt_deid.ident(c) }}{% if not loop.last %}, {% endif %}{% endfor %}{{ 'r.*' if names | length == 0 else '' }}
from ranked as r
join caps as c on {% for p in parts %}r.{{ p }} is not distinct from c.{{ p }} and {% endfor %}true
where r.claim_rank__ <= c.cap__
{%- endmacro %}

{#- The table ('patients' or 'claims') with each hierarchical QI replaced by its label at the
    release level (deid_claims_levels), joined to the long-form hierarchy on the value cast to a
    string; other columns unchanged. -#}
{% macro claims_generalize_sql(cfg, table, relation, hierarchy, levels) -%}
  {{ return(dbt_deid.own(adapter.dispatch('claims_generalize_sql', 'dbt_deid'))(cfg, table, relation, hierarchy, levels)) }}
{%- endmacro %}

{% macro default__claims_generalize_sql(cfg, table, relation, hierarchy, levels) -%}
  {%- set hier = dbt_deid.claims_hierarchical(cfg, table) -%}
  {%- set names = adapter.get_columns_in_relation(relation) | map(attribute='name') | list if execute else [] -%}
select
  {%- for c in names %}
    {%- if c in hier %}
    h{{ hier.index(c) }}.generalized_value as {{ dbt_deid.ident(c) }}
    {%- else %}
    t.{{ dbt_deid.ident(c) }}
    {%- endif %}{% if not loop.last %},{% endif %}
  {%- endfor %}
  {%- if names | length == 0 %} *{% endif %}
from {{ relation }} as t
{%- for c in hier %}
left join {{ hierarchy }} as h{{ loop.index0 }}
  on h{{ loop.index0 }}.qi_name = {{ dbt_deid.literal(c) }}
  and h{{ loop.index0 }}.level = (select level from {{ levels }} where column_name = {{ dbt_deid.literal(c) }})
  and h{{ loop.index0 }}.original_value = cast(t.{{ dbt_deid.ident(c) }} as varchar)
{%- endfor %}
{%- endmacro %}

{#- The published columns of a table: the pseudonymized ids (the member id first), the
    quasi-identifiers (generalized) and release_columns. Claims keep the provider ids as
    suppressed. -#}
{% macro claims_publish_sql(cfg, table, relation) -%}
  {{ return(dbt_deid.own(adapter.dispatch('claims_publish_sql', 'dbt_deid'))(cfg, table, relation)) }}
{%- endmacro %}

{% macro default__claims_publish_sql(cfg, table, relation) -%}
  {%- set qis = cfg.demographic_qis if table == 'patients' else cfg.claim_qis -%}
  {%- set cols = [cfg.member_id] -%}
  {%- for c in cfg.pseudonymize[table] + qis + cfg.release_columns[table] if c not in cols -%}
    {%- do cols.append(c) -%}
  {%- endfor -%}
select {% for c in cols %}{{ dbt_deid.ident(c) }}{% if not loop.last %}, {% endif %}{% endfor %}
from {{ relation }}
{%- endmacro %}

{#- One row of deid_claims_preprocessing_report (appended to rows as SQL). -#}
{% macro _claims_report_row(rows, order, step, table, rows_in, rows_out, measure, value) -%}
  {%- do rows.append("select " ~ order ~ " as step_order, " ~ dbt_deid.literal(step) ~ " as step, " ~ dbt_deid.literal(table) ~ " as table_name, ("
      ~ rows_in ~ ") as rows_in, (" ~ rows_out ~ ") as rows_out, " ~ dbt_deid.literal(measure) ~ " as measure, cast((" ~ value ~ ") as " ~ dbt_deid.type_double() ~ ") as value") -%}
{%- endmacro %}

{#- Second line of defence for the claims publish models: `dbt run` runs no tests, so at run time
    refuse to publish when the gate's own verdicts (node_risk, attack1) did not both pass. -#}
{% macro assert_claims_gate_passed(gate) -%}
  {{ return(dbt_deid.own(adapter.dispatch('assert_claims_gate_passed', 'dbt_deid'))(gate)) }}
{%- endmacro %}

{% macro default__assert_claims_gate_passed(gate) -%}
  {%- if execute and flags.WHICH in ['run', 'build'] -%}
    {%- set failed = run_query("select measure from " ~ gate ~ " where measure in ('node_risk', 'attack1') and (passed is null or not passed) order by measure").columns[0].values() -%}
    {%- set measures = run_query("select count(*) from " ~ gate ~ " where measure in ('node_risk', 'attack1')").rows[0][0] -%}
    {%- if failed | length > 0 or measures != 2 -%}
      {{ exceptions.raise_compiler_error("model " ~ this.identifier ~ ": the claims release did not pass its gate(s) " ~ (failed | join(', ') if failed | length > 0 else '(assessment incomplete)') ~ " in deid_claims_release_gate; nothing published") }}
    {%- endif -%}
  {%- endif -%}
{%- endmacro %}

