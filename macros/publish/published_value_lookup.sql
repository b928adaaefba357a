{#- The published cells of a relation's QI columns, each formatted once per distinct value
    (session 14). published_value_sql formats a cell with string and exact-decimal arithmetic;
    per record at 2.4 million records that was most of the publish step's candidate write
    (16 s of 21 s, under load) and of its proof published_matches_checked (formatting the
    checked pattern table). Here a formatted column is read from a lookup of its distinct
    values: `left join (select d.v, <published_value_sql of d.v> as f from (select distinct
    <column> as v from <relation>) as d) as <lookup> on <lookup>.v = <alias>.<column>`. The
    lookup holds one row per value, so each row gets exactly the cell published_value_sql gives
    it when `relation` holds every value of the column: the same relation, or its pattern table
    (the candidate write reads deid_suppressed_patterns, proven by the gate table to be the
    checked release grouped; a value it lacked would be published NULL, and the proof
    published_matches_checked refuses that candidate). A NULL cell (a suppressed one) matches no
    row and stays NULL, as published_value_sql leaves it. Returns
    {exprs: {column: the published cell's expression}, joins: [join clauses]}; a column
    without a kind (the text as checked) is `<alias>.<column>` and needs no join. -#}
{% macro published_value_lookup(cfg, kinds, relation, alias, columns) -%}
  {{ return(dbt_deid.own(adapter.dispatch('published_value_lookup', 'dbt_deid'))(cfg, kinds, relation, alias, columns)) }}
{%- endmacro %}

{% macro default__published_value_lookup(cfg, kinds, relation, alias, columns) -%}
  {%- set exprs = {} -%}{%- set joins = [] -%}
  {%- for c in columns -%}
    {%- set cell = alias ~ '.' ~ dbt_deid.ident(c) -%}
    {%- if kinds.get(c) is none -%}
      {%- do exprs.update({c: cell}) -%}
    {%- else -%}
      {%- set lookup = 'deid_shown_' ~ loop.index ~ '__' -%}
      {%- do joins.append('left join (select d.v, ' ~ dbt_deid.published_value_sql(cfg, kinds.get(c), 'd.v') ~ ' as f from (select distinct '
          ~ dbt_deid.ident(c) ~ ' as v from ' ~ relation ~ ') as d) as ' ~ lookup ~ ' on ' ~ lookup ~ '.v = ' ~ cell) -%}
      {%- do exprs.update({c: lookup ~ '.f'}) -%}
    {%- endif -%}
  {%- endfor -%}
  {{ return({'exprs': exprs, 'joins': joins}) }}
{%- endmacro %}
