{#- A quoted identifier for any name (a column of the source, a QI, a hierarchy header): the
    adapter's quote character around the name with that character doubled inside, so a name is
    always data, never SQL (issue 13). Plain lower-case names that are not reserved words stay
    unquoted (readable SQL; engines that fold unquoted names to upper case still find them). A
    NUL character, which no engine allows in a name, is an error. -#}
{% macro ident(name) -%}
  {{ return(dbt_deid.own(adapter.dispatch('ident', 'dbt_deid'))(name)) }}
{%- endmacro %}

{#- The checks inline, not through the helper macros (the package quotes ~10,000 names a
    build, and each macro call costs more than the check: docs/performance.md, "Suite time,
    session 15"): `_reject_nul` is called only when the name holds a NUL (it raises), and the
    reserved words are `_reserved_words()`'s, between spaces (tests/unit/test_sql_names.py
    checks the two lists are one). -#}
{% macro default__ident(name) -%}
  {%- set name = name | string -%}
  {%- if modules.re.search('\x00', name) -%}{%- do dbt_deid._reject_nul(name, 'name') -%}{%- endif -%}
  {%- if modules.re.fullmatch('[a-z_][a-z0-9_]*', name) and (' ' ~ name ~ ' ') not in ' all analyse analyze and any array as asc asymmetric authorization between binary both by case cast check collate collation column concurrently constraint create cross cube current_catalog current_date current_role current_schema current_time current_timestamp current_user default deferrable delete desc describe distinct do drop else end escape except exists false fetch filter for foreign freeze from full grant group grouping having ilike in initially inner insert intersect interval into is isnull join lambda lateral leading left like limit localtime localtimestamp natural not notnull null offset on only or order outer over overlaps partition pivot pivot_longer pivot_wider placing primary qualify range references returning right rollup row rows select session_user set show similar some summarize symmetric system_user table tablesample then to trailing true union unique unpivot update user using values variadic verbose when where window with ' -%}
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
  {%- if modules.re.fullmatch('[a-z_][a-z0-9_]*', name) and name not in dbt_deid._reserved_words() -%}
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
