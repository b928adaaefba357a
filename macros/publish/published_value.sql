{#- Published types (issue 35, docs/published-types.md). The checked release (deid_suppressed, or
    deid_sample_file) holds every released QI as text at its released level; the published table
    shows each cell as:
    * an ungeneralized QI (level 0) whose source column is numeric: the number, in the source
      column's type, when the release input has no missing value in that column (a missing
      value is its own category, the missing label, which a number column cannot hold; the
      column then stays text, as before);
    * a truncated date: a label naming the period, never a day: '2024' (year), '2024-Q4'
      (quarter), '2024-10' (month), 'week of 2024-10-07' (week, from its Monday);
    * an interval: the half-open interval '[40, 45)' (labels range, lower and index alike);
      the top- and bottom-coded bins stay '90+' and '<20';
    * anything else (prefixes, lookup hierarchies, the missing label): the text as checked.
    A suppressed cell stays NULL. The mapping is one-to-one on each column, and the gate
    published_matches_checked applies it to the checked release before comparing, at the
    levels the gate table recorded (proven from the checked release: the gate released_levels),
    so the proof that the candidate is the checked release is unchanged, and a candidate
    formatted at other levels fails it. -#}

{#- QI name -> how its cells are published: {'kind': 'number', 'type': SQL type},
    {'kind': 'date', 'unit': ...}, {'kind': 'interval', 'spec': level spec} or none (text as
    checked). Read from the settings, the released levels (`levels`, {qi: level}, when given:
    the levels the gate table recorded; else as they are now) and the release input's column
    types (and, for a number, whether the input has a NULL in it); {} while parsing. -#}
{% macro published_value_kinds(cfg, levels=none) -%}
  {{ return(dbt_deid.own(adapter.dispatch('published_value_kinds', 'dbt_deid'))(cfg, levels)) }}
{%- endmacro %}

{% macro default__published_value_kinds(cfg, levels=none) -%}
  {%- set src = dbt_deid.release_source(cfg) -%}
  {%- if not dbt_deid.can_inspect(src) -%}{{ return({}) }}{%- endif -%}
  {#- compile, docs and ls on a fresh warehouse: the configured levels (a preview; OLA's levels
      are read when the release is built) -#}
  {%- set preview = dbt_deid._compile_only_command() and dbt_deid.ola_config() is not none -%}
  {%- set levels = levels if levels is not none else ({} if preview else dbt_deid._chosen_levels()) -%}
  {%- set types = {} -%}
  {%- for col in adapter.get_columns_in_relation(src) -%}
    {%- do types.update({col.name | lower: col}) -%}
  {%- endfor -%}
  {#- a remedied small-area geography may hold an aggregated area's label at level 0: text -#}
  {%- set areas = (dbt_deid.release_settings() or {}).get('small_areas') -%}
  {%- set geography = areas.get('geography_column') if areas is mapping else none -%}
  {#- the NULL check reads the input snapshot (deid_input); under compile/docs/ls on a warehouse
      where it is not built yet, the source -#}
  {%- set snapshot = dbt_deid.release_snapshot() -%}
  {%- set counted = snapshot if dbt_deid.can_inspect(snapshot) else src -%}
  {%- set out = {} -%}
  {%- for q in cfg.qis if q.name in cfg.released_qis -%}
    {%- set level = levels.get(q.name, q.level) | int -%}
    {%- set col = types.get(q.column | lower) -%}
    {%- if level == 0 -%}
      {%- if col is not none and col.is_number() and q.name != geography -%}
        {%- set nulls = run_query('select count(*) from ' ~ counted ~ ' where ' ~ dbt_deid.ident(q.column) ~ ' is null').rows[0][0] -%}
        {%- if nulls == 0 -%}{%- do out.update({q.name: {'kind': 'number', 'type': col.data_type}}) -%}{%- endif -%}
      {%- endif -%}
    {%- elif q.rule is not none and q.rule.type == 'date' -%}
      {%- do out.update({q.name: {'kind': 'date', 'unit': q.rule['levels'][level - 1].trunc}}) -%}
    {%- elif q.rule is not none and q.rule.type == 'interval' -%}
      {%- do out.update({q.name: {'kind': 'interval', 'spec': q.rule['levels'][level - 1]}}) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return(out) }}
{%- endmacro %}

{#- The published cell of `expr` (a checked, text cell of the QI) for `kind` (an entry of
    published_value_kinds; none: the text itself). -#}
{% macro published_value_sql(cfg, kind, expr) -%}
  {{ return(dbt_deid.own(adapter.dispatch('published_value_sql', 'dbt_deid'))(cfg, kind, expr)) }}
{%- endmacro %}

{% macro default__published_value_sql(cfg, kind, expr) -%}
  {%- if kind is none -%}{{ return(expr) }}{%- endif -%}
  {%- if kind.kind == 'number' -%}
    {{ return('cast(' ~ expr ~ ' as ' ~ kind.type ~ ')') }}
  {%- endif -%}
  {%- set miss = dbt_deid.literal(cfg.missing_label) -%}
  {%- if kind.kind == 'date' -%}
    {%- set label = dbt_deid.date_period_label_sql(kind.unit, expr) -%}
  {%- else -%}
    {%- set label = dbt_deid.interval_label_sql(kind.spec, expr) -%}
  {%- endif -%}
  {{ return('case when ' ~ expr ~ ' = ' ~ miss ~ ' then ' ~ expr ~ ' else ' ~ label ~ ' end') }}
{%- endmacro %}

{#- The period of a truncated date from its first day as ISO text ('2024-10-01'). -#}
{% macro date_period_label_sql(unit, expr) -%}
  {{ return(dbt_deid.own(adapter.dispatch('date_period_label_sql', 'dbt_deid'))(unit, expr)) }}
{%- endmacro %}

{% macro default__date_period_label_sql(unit, expr) -%}
  {%- if unit == 'year' -%}
    {{ return('substr(' ~ expr ~ ', 1, 4)') }}
  {%- elif unit == 'month' -%}
    {{ return('substr(' ~ expr ~ ', 1, 7)') }}
  {%- elif unit == 'quarter' -%}
    {%- set q = "case substr(" ~ expr ~ ", 6, 2) when '01' then '-Q1' when '04' then '-Q2' when '07' then '-Q3' when '10' then '-Q4' end" -%}
    {{ return(dbt.concat(['substr(' ~ expr ~ ', 1, 4)', q])) }}
  {%- else -%}
    {{ return(dbt.concat(["'week of '", expr])) }}
  {%- endif -%}
{%- endmacro %}

{#- The half-open interval '[lo, hi)' of an interval cell labelled by `spec` (range, lower or
    index); the top- and bottom-coded bins ('90+', '<20') are left as they are. Explicit breaks
    map each label to its interval (known when compiling); equal widths compute the lower bound
    from the label (exact decimals) and add the width. -#}
{% macro interval_label_sql(spec, expr) -%}
  {{ return(dbt_deid.own(adapter.dispatch('interval_label_sql', 'dbt_deid'))(spec, expr)) }}
{%- endmacro %}

{% macro default__interval_label_sql(spec, expr) -%}
  {%- set coded = expr ~ " like '%+' or " ~ expr ~ " like '<%'" -%}
  {%- if spec.get('breaks') is not none -%}
    {%- set label = spec.get('label', 'range') -%}
    {%- set breaks = spec.breaks -%}
    {%- set whens = [] -%}
    {%- for i in range(breaks | length - 1) -%}
      {%- set lo = breaks[i] -%}{%- set hi = breaks[i + 1] -%}
      {%- if label == 'index' -%}{%- set text = i | string -%}
      {%- elif label == 'lower' -%}{%- set text = dbt_deid._decimal_text(lo) -%}
      {%- elif lo is integer and hi is integer -%}{%- set text = dbt_deid._decimal_text(lo) if hi - lo == 1 else dbt_deid._decimal_text(lo) ~ '-' ~ dbt_deid._decimal_text(hi - 1) -%}
      {%- else -%}{%- set text = dbt_deid._decimal_text(lo) ~ '-' ~ dbt_deid._decimal_text(hi) -%}{%- endif -%}
      {%- do whens.append('when ' ~ dbt_deid.literal(text) ~ ' then ' ~ dbt_deid.literal('[' ~ dbt_deid._decimal_text(lo) ~ ', ' ~ dbt_deid._decimal_text(hi) ~ ')')) -%}
    {%- endfor -%}
    {%- set last = breaks[-1] -%}
    {%- if label == 'index' -%}
      {%- do whens.append('when ' ~ dbt_deid.literal((breaks | length - 1) | string) ~ ' then ' ~ dbt_deid.literal(dbt_deid._decimal_text(last) ~ '+')) -%}
    {%- elif label == 'lower' -%}
      {%- do whens.append('when ' ~ dbt_deid.literal(dbt_deid._decimal_text(last)) ~ ' then ' ~ dbt_deid.literal(dbt_deid._decimal_text(last) ~ '+')) -%}
    {%- endif -%}
    {{ return('case ' ~ expr ~ ' ' ~ whens | join(' ') ~ ' else ' ~ expr ~ ' end') }}
  {%- endif -%}
  {%- set label = spec.get('label', 'range') -%}
  {%- set w = dbt_deid._decimal_text(spec.width) -%}
  {%- set off = dbt_deid._decimal_text(spec.get('offset', 0)) -%}
  {%- set scale = [dbt_deid._decimal_scale(spec.width), dbt_deid._decimal_scale(spec.get('offset', 0))] | max -%}
  {%- if label == 'index' -%}
    {%- set lower = '(' ~ dbt_deid.exact_number_sql(expr) ~ ' * (' ~ w ~ ') + (' ~ off ~ '))' -%}
  {%- elif label == 'lower' -%}
    {%- set lower = dbt_deid.exact_number_sql(expr) -%}
  {%- else -%}
    {#- 'lo-hi' (lo may be negative: the separator is the first '-' after the first character) -#}
    {%- set head = 'substr(' ~ expr ~ ', 1, 1)' -%}
    {%- set rest = dbt.split_part('substr(' ~ expr ~ ', 2)', "'-'", 1) -%}
    {%- set lower = dbt_deid.exact_number_sql(dbt.concat([head, rest])) -%}
  {%- endif -%}
  {%- set text = dbt.concat(["'['", dbt_deid.decimal_label_sql(lower, scale), "', '", dbt_deid.decimal_label_sql('(' ~ lower ~ ' + (' ~ w ~ '))', scale), "')'"]) -%}
  {{ return('case when ' ~ coded ~ ' then ' ~ expr ~ ' else ' ~ text ~ ' end') }}
{%- endmacro %}
