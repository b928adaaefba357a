{#- The suppression masks of each combination: for every combination (a list of released
    columns), the distinct patterns of NULL cells among its columns in `relation`, as lists of
    0/1 flags in the combination's order. One query over the union of the combinations'
    columns, projected per combination (one scan instead of one per combination: about 0.6-1 s
    each at 24 million records, issue 18). [[]...] while parsing, or on a fresh warehouse under
    compile (dbt_deid.can_inspect). `relation` may be a subquery (`(select ...) as x`, the rows
    deid_suppressed_patterns is about to write): `inputs` are then the relations it reads,
    which must all exist. -#}
{% macro null_masks(relation, combinations, inputs=none) -%}
  {%- set cols = [] -%}
  {%- for b in combinations -%}{%- for c in b -%}{%- if c not in cols -%}{%- do cols.append(c) -%}{%- endif -%}{%- endfor -%}{%- endfor -%}
  {%- set out = [] -%}
  {%- for b in combinations -%}{%- do out.append([]) -%}{%- endfor -%}
  {%- set readable = [] -%}
  {%- for r in (inputs if inputs is not none else [relation]) -%}{%- if dbt_deid.can_inspect(r) -%}{%- do readable.append(r) -%}{%- endif -%}{%- endfor -%}
  {%- if cols | length > 0 and readable | length == (inputs if inputs is not none else [relation]) | length -%}
    {%- set flags = [] -%}
    {%- for c in cols -%}{%- do flags.append('case when ' ~ dbt_deid.ident(c) ~ ' is null then 1 else 0 end') -%}{%- endfor -%}
    {%- set rows = run_query('select distinct ' ~ flags | join(', ') ~ ' from ' ~ relation).rows -%}
    {%- for b in combinations -%}
      {%- set seen = [] -%}
      {%- for r in rows -%}
        {%- set m = [] -%}
        {%- for c in b -%}{%- do m.append(r[cols.index(c)] | int) -%}{%- endfor -%}
        {%- if m not in seen -%}{%- do seen.append(m) -%}{%- endif -%}
      {%- endfor -%}
      {#- sorted: the compiled SQL (one join per mask) is the same in every build, whatever
          order the warehouse returns the distinct rows in -#}
      {%- do out[loop.index0].extend(seen | sort) -%}
    {%- endfor -%}
  {%- endif -%}
  {{ return(out) }}
{%- endmacro %}
