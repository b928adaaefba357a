{#- Attribute disclosure gates (docs/attribute-disclosure.md): per verified combination and
    sensitive column, over the checked release's classes (equal released values of the
    combination, a suppressed cell its own category, as the k-anonymity gate):

    * distinct_l_diversity: every class holds at least l distinct sensitive values
      (Machanavajjhala et al. 2007, section 4.1; ARX DistinctLDiversity);
    * entropy_l_diversity: -sum p log p >= log(l) in every class (ibid. Definition 4.1);
    * recursive_cl_diversity: r_1 < c (r_l + ... + r_m), m >= l (ibid. Definition 4.2);
    * t_closeness: the Earth Mover's Distance between every class's distribution and the whole
      release's is at most t (Li et al. 2007, section 4.2) under the equal, ordered or
      hierarchical ground distance.

    dbt_deid.attribute_disclosure (the core) is the Python reference of the same definitions.
    The sensitive values are the release input's (published unchanged), joined on the record
    id; a missing value is the missing label, a value of its own. Results name the gate, the
    combination and the column, with counts and figures only, never a value. -#}

{#- One row per class of `combination` for sensitive column `column`: class_id, records,
    distinct_values, entropy (natural log), recursive_ratio (r_1 / (r_l + ... + r_m), null
    below l values or without recursive_l) and emd (null without t). `hierarchy`: the relation
    of an ARX-layout hierarchy (hierarchical distance), `ordered`: true for the ordered
    distance, else the equal distance. -#}
{% macro attribute_disclosure_classes_sql(truth, cfg, combination, column, ad, hierarchy=none, ordered=false) -%}
  {{ return(dbt_deid.own(adapter.dispatch('attribute_disclosure_classes_sql', 'dbt_deid'))(truth, cfg, combination, column, ad, hierarchy, ordered)) }}
{%- endmacro %}

{% macro default__attribute_disclosure_classes_sql(truth, cfg, combination, column, ad, hierarchy, ordered) -%}
  {%- set s = dbt.type_string() -%}
  {%- set d = dbt_deid.type_double() -%}  {#- not 1.0: a decimal literal keeps 6 decimals on Spark -#}
  {%- set rid = dbt_deid.ident(cfg.record_id) -%}
  {%- set keys = [] -%}{%- for q in combination -%}{%- do keys.append('t.' ~ dbt_deid.ident(q)) -%}{%- endfor -%}
  {%- set l = ad.recursive_l -%}
  with base as (
    select dense_rank() over (order by {{ keys | join(', ') }}) as class_id,
      coalesce(cast(src.{{ dbt_deid.ident(column) }} as {{ s }}), {{ dbt_deid.literal(cfg.missing_label) }}) as v,
      {{ ('src.' ~ dbt_deid.ident(column)) if ordered else 'cast(null as ' ~ s ~ ')' }} as o
    from {{ truth }} as t
    join {{ dbt_deid.release_input(cfg) }} as src on src.{{ rid }} = t.{{ rid }}
  ),
  cells as (
    select class_id, v, count(*) as n,
      row_number() over (partition by class_id order by count(*) desc, v) as rnk
    from base group by class_id, v
  ),
  whole as (
    select v, cast(count(*) as {{ d }}) / (select count(*) from base) as q,
      row_number() over (order by case when min(o) is null then 1 else 0 end, min(o), v) as idx
    from base group by v
  ),
  classes as (
    select class_id, sum(n) as records, count(*) as distinct_values,
      sum(n * ln(cast(n as {{ d }}))) as nlogn, max(n) as top,
      sum(case when rnk >= {{ l if l is not none else 0 }} then n else 0 end) as tail
    from cells group by class_id
  )
  {%- if ad.t is not none and (ordered or hierarchy is not none) %},
  grid as (
    select c.class_id, w.v, w.idx, cast(coalesce(x.n, 0) as {{ d }}) / c.records - w.q as r
    from classes as c cross join whole as w
    left join cells as x on x.class_id = c.class_id and x.v = w.v
  )
  {%- endif %}
  {%- if ad.t is not none and ordered %},
  cumulative as (
    select class_id, sum(r) over (partition by class_id order by idx rows between unbounded preceding and current row) as cum
    from grid
  ),
  emd as (
    select class_id, sum(abs(cum)) / {{ dbt_deid.nonzero('(select count(*) - 1 from whole)') }} as emd
    from cumulative group by class_id
  )
  {%- elif ad.t is not none and hierarchy is not none %}
  {%- set cols = adapter.get_columns_in_relation(hierarchy) | map(attribute='name') | list -%}
  {%- set height = cols | length - 1 -%},
  tree as (
    select {% for c in cols %}cast({{ dbt_deid.ident(c) }} as {{ s }}) as a{{ loop.index0 }}{% if not loop.last %}, {% endif %}{% endfor %}
    from {{ hierarchy }}
  ),
  leaf as (
    select g.class_id, g.r{% for h in range(1, height + 1) %}, tr.a{{ h }}{% endfor %}, g.v as a0
    from grid as g join tree as tr on tr.a0 = g.v
  ),
  costs as (
    {%- for h in range(1, height + 1) %}
    select class_id, cast({{ h }} as {{ d }}) / {{ height }} * least(sum(case when e > 0 then e else 0 end), sum(case when e < 0 then -e else 0 end)) as cost
    from (select class_id, a{{ h }}, a{{ h - 1 }}, sum(r) as e from leaf group by class_id, a{{ h }}, a{{ h - 1 }}) as children
    group by class_id, a{{ h }}
    {%- if not loop.last %}
    union all{% endif %}
    {%- endfor %}
  ),
  emd as (
    select class_id, sum(cost) as emd from costs group by class_id
  )
  {%- elif ad.t is not none %},
  emd as (
    select x.class_id, 0.5 * (sum(abs(cast(x.n as {{ d }}) / c.records - w.q)) + 1 - sum(w.q)) as emd
    from cells as x join classes as c on c.class_id = x.class_id join whole as w on w.v = x.v
    group by x.class_id
  )
  {%- endif %}
  select c.class_id, c.records, c.distinct_values,
    ln(cast(c.records as {{ d }})) - c.nlogn / c.records as entropy,
    {%- if l is not none %}
    case when c.distinct_values >= {{ l }} then cast(c.top as {{ d }}) / c.tail end as recursive_ratio,
    {%- else %}
    cast(null as {{ d }}) as recursive_ratio,
    {%- endif %}
    {{ 'e.emd' if ad.t is not none else 'cast(null as ' ~ d ~ ')' }} as emd
  from classes as c
  {%- if ad.t is not none %}
  left join emd as e on e.class_id = c.class_id
  {%- endif %}
{%- endmacro %}

{#- One row: the figures of `combination` x `column` over its classes: classes, the smallest
    distinct count and entropy, the largest recursive ratio (-1 for a class below l values) and
    EMD, each model's failing classes and their records, and (hierarchical distance) the
    sensitive values that are not leaves of the hierarchy. The tolerance 1e-9 is the core's
    (dbt_deid.attribute_disclosure.TOLERANCE). -#}
{% macro attribute_disclosure_figures_sql(truth, cfg, combination, column, ad, hierarchy=none, ordered=false) -%}
  {{ return(dbt_deid.own(adapter.dispatch('attribute_disclosure_figures_sql', 'dbt_deid'))(truth, cfg, combination, column, ad, hierarchy, ordered)) }}
{%- endmacro %}

{% macro default__attribute_disclosure_figures_sql(truth, cfg, combination, column, ad, hierarchy, ordered) -%}
  {%- set fails = {
      'distinct': ('f.distinct_values < ' ~ ad.distinct_l) if ad.distinct_l is not none else '1 = 0',
      'entropy': ('f.entropy < ln(' ~ ad.entropy_l ~ ') - 1e-9') if ad.entropy_l is not none else '1 = 0',
      'recursive': ('not (coalesce(f.recursive_ratio, ' ~ ad.recursive_c ~ ') < ' ~ ad.recursive_c ~ ')') if ad.recursive_c is not none else '1 = 0',
      't': ('f.emd > ' ~ ad.t ~ ' + 1e-9') if ad.t is not none else '1 = 0'} -%}
  select count(*) as classes,
    min(f.distinct_values) as min_distinct, exp(min(f.entropy)) as min_entropy_l,
    max(coalesce(f.recursive_ratio, -1)) as max_recursive_ratio, max(f.emd) as max_emd,
    {%- for m, cond in fails.items() %}
    sum(case when {{ cond }} then 1 else 0 end) as {{ m }}_failing,
    sum(case when {{ cond }} then f.records else 0 end) as {{ m }}_records,
    {%- endfor %}
    {%- if hierarchy is not none and ad.t is not none %}
    (select count(*) from (select distinct coalesce(cast(src.{{ dbt_deid.ident(column) }} as {{ dbt.type_string() }}), {{ dbt_deid.literal(cfg.missing_label) }}) as v from {{ dbt_deid.release_input(cfg) }} as src) as d
     where not exists (select 1 from {{ hierarchy }} as h where cast(h.{{ dbt_deid.ident((adapter.get_columns_in_relation(hierarchy) | first).name) }} as {{ dbt.type_string() }}) = d.v)) as not_in_hierarchy
    {%- else %}
    0 as not_in_hierarchy
    {%- endif %}
  from ({{ dbt_deid.attribute_disclosure_classes_sql(truth, cfg, combination, column, ad, hierarchy, ordered) }}) as f
{%- endmacro %}

{#- The gate results of the attribute-disclosure models the release sets (one result per model,
    a detail row per failing combination x sensitive column); [] without sensitive columns. -#}
{% macro attribute_disclosure_results(cfg, truth) -%}
  {{ return(dbt_deid.own(adapter.dispatch('attribute_disclosure_results', 'dbt_deid'))(cfg, truth)) }}
{%- endmacro %}

{% macro default__attribute_disclosure_results(cfg, truth) -%}
  {%- set ad = cfg.attribute_disclosure -%}
  {%- if not cfg.sensitive -%}{{ return([]) }}{%- endif -%}
  {#- the models declared, as the gate tests decide which of theirs exist (optional_gates) -#}
  {%- set declared = dbt_deid.optional_gates(cfg) -%}
  {%- set models = [] -%}
  {%- for gate, m in [('distinct_l_diversity', 'distinct'), ('entropy_l_diversity', 'entropy'), ('recursive_cl_diversity', 'recursive'), ('t_closeness', 't')] -%}
    {%- if declared[gate] -%}{%- do models.append((gate, m)) -%}{%- endif -%}
  {%- endfor -%}
  {%- set figures = [] -%}
  {%- for column in cfg.sensitive -%}
    {%- set h = ad.hierarchies.get(column | lower) -%}
    {%- set hierarchy = ref(h) if h is not none else none -%}
    {%- for b in cfg.verified_combinations -%}
      {%- set row = run_query(dbt_deid.attribute_disclosure_figures_sql(truth, cfg, b, column, ad, hierarchy, (column | lower) in ad.ordered)).rows[0] -%}
      {%- do figures.append({'combination': b | join('+'), 'column': column, 'row': row, 'distance': 'hierarchical' if h is not none else ('ordered' if (column | lower) in ad.ordered else 'equal')}) -%}
    {%- endfor -%}
  {%- endfor -%}
  {%- set results = [] -%}
  {#- the history and the report show that the suppression ran the remedy -#}
  {%- set remedy = ' [attribute_disclosure.remedy: suppress]' if ad.remedy == 'suppress' else '' -%}
  {%- for gate, m in models -%}
    {%- set details = [] -%}
    {%- set worst = [] -%}
    {%- for f in figures -%}
      {%- set r = f.row -%}
      {%- set bad = r[m ~ '_failing'] | int + (r['not_in_hierarchy'] | int if m == 't' else 0) -%}
      {%- if m == 'distinct' -%}{%- set limit = 'fewer than l = ' ~ ad.distinct_l ~ ' distinct values' -%}{%- set fig = 'smallest ' ~ r['min_distinct'] -%}
      {%- elif m == 'entropy' -%}{%- set limit = 'entropy below log(l), l = ' ~ ad.entropy_l -%}{%- set fig = 'smallest entropy l ' ~ ('%.4f' | format(r['min_entropy_l'] | float)) -%}
      {%- elif m == 'recursive' -%}{%- set limit = 'r_1 >= c (r_l + ... + r_m) with c = ' ~ ad.recursive_c ~ ', l = ' ~ ad.recursive_l ~ ' (or fewer than l values)' -%}{%- set fig = 'largest r_1 / (r_l + ... + r_m) ' ~ (('%.4f' | format(r['max_recursive_ratio'] | float)) if (r['max_recursive_ratio'] | float) >= 0 else 'n/a') -%}
      {%- else -%}{%- set limit = "an Earth Mover's Distance above t = " ~ ad.t ~ ' (' ~ f.distance ~ ' distance)' -%}{%- set fig = 'largest ' ~ ('%.4f' | format(r['max_emd'] | float)) -%}
      {%- endif -%}
      {%- do worst.append(f.combination ~ ' x ' ~ f.column ~ ': ' ~ fig) -%}
      {%- if bad > 0 -%}
        {%- set extra = ('; ' ~ r['not_in_hierarchy'] ~ ' sensitive value(s) are not leaves of hierarchy ' ~ ad.hierarchies[f.column | lower]) if (m == 't' and r['not_in_hierarchy'] | int > 0) else '' -%}
        {%- do details.append({'combination': f.combination, 'column_name': f.column, 'failures': bad,
            'message': gate ~ ': combination ' ~ f.combination ~ ', sensitive column ' ~ f.column ~ ': ' ~ r[m ~ '_failing'] ~ ' of ' ~ r['classes'] ~ ' class(es) with ' ~ limit ~ ' (' ~ r[m ~ '_records'] ~ ' records; ' ~ fig ~ ')' ~ extra}) -%}
      {%- endif -%}
    {%- endfor -%}
    {%- set msgs = [] -%}{%- for d in details -%}{%- do msgs.append(d.message) -%}{%- endfor -%}
    {%- do results.append({'gate': gate, 'details': details, 'passed': details | length == 0, 'failures': details | length,
        'message': ((msgs | join('; ')) if details else (gate ~ ': every class passes (' ~ worst | join('; ') ~ ')')) ~ remedy}) -%}
  {%- endfor -%}
  {{ return(results) }}
{%- endmacro %}
