{#- ---------- step 1: tokens of each annotation span ---------- -#}

{#- Boolean SQL expression: the one-character string `char_expr` is a letter or a digit (a token
    character, Python's [^\W_]). Engines without RE2 Unicode classes override this (e.g.
    `upper(c) <> lower(c) or c between '0' and '9'` covers cased letters and ASCII digits). -#}
{% macro text_token_char_sql(char_expr) -%}
  {{ return(dbt_deid.own(adapter.dispatch('text_token_char_sql', 'dbt_deid'))(char_expr)) }}
{%- endmacro %}

{% macro default__text_token_char_sql(char_expr) -%}
  regexp_matches({{ char_expr }}, '^[\p{L}\p{N}]$')
{%- endmacro %}

{#- PostgreSQL: regexp_matches returns rows of arrays there; the boolean match is `~`, and the
    ICU collation makes [[:alpha:]]/[[:digit:]] Unicode classes (u_isalpha/u_isdigit) whatever
    the database's locale. -#}
{% macro postgres__text_token_char_sql(char_expr) -%}
  ({{ char_expr }} collate "und-x-icu" ~ '^[[:alpha:][:digit:]]$')
{%- endmacro %}

{#- Spark: no regexp_matches; rlike takes a Java regular expression, whose \p{L} and \p{N} are
    the same Unicode classes. A raw literal (r'...'), since Spark's string literals drop the
    backslash of an unknown escape such as \p. -#}
{% macro spark__text_token_char_sql(char_expr) -%}
  ({{ char_expr }} rlike r'^[\p{L}\p{N}]$')
{%- endmacro %}
