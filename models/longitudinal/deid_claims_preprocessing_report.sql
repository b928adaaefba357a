{{ config(enabled=dbt_deid.claims_release_enabled(), tags=["deid_claims"]) }}
{%- if dbt_deid.claims_release_enabled() -%}
{%- set cfg = dbt_deid.claims_release_config() -%}
{#- What every preprocessing step did (El Emam et al. 2012, "Preprocessing of Claims Data"), never silent:
    one row per step, table and measure with rows in and out; the steps, names and counts of the
    core's StepReports (dbt_deid.longitudinal.preprocess), then `release` (input rows against
    the rows the publish models release). -#}
{%- set m = dbt_deid.ident(cfg.member_id) -%}
{%- set rows = [] -%}
{%- set rel = {
    'in_p': ref('dbt_deid', 'deid_claims_input_patients'), 'in_c': ref('dbt_deid', 'deid_claims_input_claims'),
    'ps_p': ref('dbt_deid', 'deid_claims_pseudonymized_patients'), 'ps_c': ref('dbt_deid', 'deid_claims_pseudonymized_claims'),
    're_p': ref('dbt_deid', 'deid_claims_retained_patients'), 're_c': ref('dbt_deid', 'deid_claims_retained_claims'),
    'pre_p': ref('dbt_deid', 'deid_claims_patients_preprocessed'), 'tc_c': ref('dbt_deid', 'deid_claims_top_coded_claims'),
    'd1': ref('dbt_deid', 'deid_claims_d1'), 'd2': ref('dbt_deid', 'deid_claims_d2'),
    'stig': ref('dbt_deid', 'deid_claims_stigmatized_members'), 'thr': ref('dbt_deid', 'deid_claims_top_code_thresholds'),
} -%}
{%- set n = {} -%}
{%- for k, r in rel.items() -%}{%- do n.update({k: "select count(*) from " ~ r}) -%}{%- endfor -%}
{#- 1. pseudonyms -#}
{%- for t, src, out in [('patients', 'in_p', 'ps_p'), ('claims', 'in_c', 'ps_c')] -%}
  {%- for c in cfg.pseudonymize[t] -%}
    {%- set col = dbt_deid.ident(c) -%}
    {{ dbt_deid._claims_report_row(rows, 1, 'pseudonymize', t, n[src], n[out], c ~ '_pseudonymized', "select count(" ~ col ~ ") from " ~ rel[out]) }}
    {{ dbt_deid._claims_report_row(rows, 1, 'pseudonymize', t, n[src], n[out], c ~ '_distinct', "select count(distinct " ~ col ~ ") from " ~ rel[out]) }}
    {{ dbt_deid._claims_report_row(rows, 1, 'pseudonymize', t, n[src], n[out], c ~ '_missing', "select count(*) - count(" ~ col ~ ") from " ~ rel[out]) }}
  {%- endfor -%}
{%- endfor -%}
{#- 2. stigmatized patients (rows: patients, as the core) -#}
{{ dbt_deid._claims_report_row(rows, 2, 'remove_stigmatized', 'patients', n.ps_p, n.re_p, 'patients_removed', n.ps_p ~ ") - (" ~ n.re_p) }}
{{ dbt_deid._claims_report_row(rows, 2, 'remove_stigmatized', 'claims', n.ps_c, n.re_c, 'claims_removed', n.ps_c ~ ") - (" ~ n.re_c) }}
{{ dbt_deid._claims_report_row(rows, 2, 'remove_stigmatized', 'claims', n.ps_c, n.re_c, 'flagged_claims', "select coalesce(sum(flagged_claims), 0) from " ~ rel.stig) }}
{#- 3. top-coding, claims first as the core -#}
{%- for t, src in [('claims', 're_c'), ('patients', 're_p')] -%}
  {%- for c in cfg.top_code[t] -%}
    {%- set w = " from " ~ rel.thr ~ " where table_name = " ~ dbt_deid.literal(t) ~ " and column_name = " ~ dbt_deid.literal(c) -%}
    {{ dbt_deid._claims_report_row(rows, 3, 'top_code:' ~ c, t, n[src], n[src], 'values_top_coded', "select values_top_coded" ~ w) }}
    {{ dbt_deid._claims_report_row(rows, 3, 'top_code:' ~ c, t, n[src], n[src], 'threshold', "select threshold" ~ w) }}
    {{ dbt_deid._claims_report_row(rows, 3, 'top_code:' ~ c, t, n[src], n[src], 'percentile', "select percentile" ~ w) }}
  {%- endfor -%}
{%- endfor -%}
{#- 4. provider suppression -#}
{%- set pattern = [] -%}
{%- for p in cfg.provider_pattern -%}{%- do pattern.append(dbt_deid.ident(p)) -%}{%- endfor -%}
{%- for c in cfg.provider_ids -%}
  {%- set col = dbt_deid.ident(c) -%}
  {{ dbt_deid._claims_report_row(rows, 4, 'suppress_rare_provider_patterns', 'claims', n.tc_c, n.d1, c ~ '_suppressed', "select count(*) from " ~ rel.tc_c ~ " where " ~ col ~ " is not null) - (select count(" ~ col ~ ") from " ~ rel.d1) }}
  {{ dbt_deid._claims_report_row(rows, 4, 'suppress_rare_provider_patterns', 'claims', n.tc_c, n.d1, c ~ '_rare_patterns', "select count(*) from (select count(distinct " ~ col ~ ") as k from " ~ rel.tc_c ~ " group by " ~ (pattern | join(', ')) ~ ") as g where k < " ~ cfg.min_providers) }}
{%- endfor -%}
{%- if cfg.provider_ids | length > 0 -%}
  {{ dbt_deid._claims_report_row(rows, 4, 'suppress_rare_provider_patterns', 'claims', n.tc_c, n.d1, 'min_providers', cfg.min_providers) }}
{%- endif -%}
{#- 5. truncation (per patient, or per patient and truncate_partition value with a cap per value) -#}
{%- set parts = [] -%}
{%- for c in cfg.truncate_partition -%}{%- do parts.append(dbt_deid.ident(c)) -%}{%- endfor -%}
{%- set pcols = parts | join(', ') ~ (', ' if parts | length > 0 else '') -%}
{%- set per = "select " ~ pcols ~ m ~ " as member__, count(*) as k from " ~ rel.d1 ~ " group by " ~ pcols ~ m -%}
{%- set caps = "select " ~ pcols ~ "percentile_disc(" ~ (cfg.truncate_percentile / 100) ~ ") within group (order by k) as cap from (" ~ per ~ ") as a" ~ (" group by " ~ (parts | join(', ')) if parts | length > 0 else "") -%}
{%- set conds = [] -%}
{%- for p in parts -%}{%- do conds.append("g." ~ p ~ " is not distinct from c." ~ p) -%}{%- endfor -%}
{%- do conds.append("true") -%}
{%- set joined = "(" ~ per ~ ") as g join (" ~ caps ~ ") as c on " ~ (conds | join(" and ")) -%}
{{ dbt_deid._claims_report_row(rows, 5, 'truncate_claims', 'claims', n.d1, n.d2, 'claims_removed', n.d1 ~ ") - (" ~ n.d2) }}
{{ dbt_deid._claims_report_row(rows, 5, 'truncate_claims', 'claims', n.d1, n.d2, 'patients_truncated', "select count(distinct g.member__) from " ~ joined ~ " where g.k > c.cap") }}
{{ dbt_deid._claims_report_row(rows, 5, 'truncate_claims', 'claims', n.d1, n.d2, 'groups_truncated', "select count(*) from " ~ joined ~ " where g.k > c.cap") }}
{{ dbt_deid._claims_report_row(rows, 5, 'truncate_claims', 'claims', n.d1, n.d2, 'cap', "select max(cap) from (" ~ caps ~ ") as c") }}
{{ dbt_deid._claims_report_row(rows, 5, 'truncate_claims', 'claims', n.d1, n.d2, 'cap_min', "select min(cap) from (" ~ caps ~ ") as c") }}
{{ dbt_deid._claims_report_row(rows, 5, 'truncate_claims', 'claims', n.d1, n.d2, 'percentile', cfg.truncate_percentile) }}
{#- 6. the release against the input -#}
{{ dbt_deid._claims_report_row(rows, 6, 'release', 'patients', n.in_p, n.pre_p, 'rows_removed', n.in_p ~ ") - (" ~ n.pre_p) }}
{{ dbt_deid._claims_report_row(rows, 6, 'release', 'claims', n.in_c, n.d2, 'rows_removed', n.in_c ~ ") - (" ~ n.d2) }}
{{ rows | join('\nunion all\n') }}
{%- endif %}
