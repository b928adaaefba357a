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
