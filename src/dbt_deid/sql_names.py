"""Names and values in SQL text built by the Python side (issue 13: identifier injection).

A name (schema, table, column) or a value never goes into SQL as it is: :func:`quote_ident`
doubles the quote character inside a quoted identifier and :func:`quote_literal` doubles single
quotes inside a string literal (standard SQL, DuckDB, PostgreSQL). The dbt macros
``dbt_deid.ident`` and ``dbt_deid.literal`` (macros/names/) do the same in
the warehouse. Prefer bound parameters where the driver has them; these are for the places SQL
needs a name (``FROM schema.table``).
"""

from __future__ import annotations

import re

from dbt_deid.errors import ConfigError

_PLAIN = re.compile(r"[a-z_][a-z0-9_]*")
# Reserved by DuckDB, PostgreSQL or Spark SQL: quoted even when plain lower case (the same
# list as the dbt macro dbt_deid._reserved_words).
RESERVED_WORDS_TEXT = """
all analyse analyze and any array as asc asymmetric authorization between binary both by case
cast check collate collation column concurrently constraint create cross cube current_catalog
current_date current_role current_schema current_time current_timestamp current_user default
deferrable delete desc describe distinct do drop else end escape except exists false fetch filter
for foreign freeze from full grant group grouping having ilike in initially inner insert intersect
interval into is isnull join lambda lateral leading left like limit localtime localtimestamp
natural not notnull null offset on only or order outer over overlaps partition pivot pivot_longer
pivot_wider placing primary qualify range references returning right rollup row rows select
session_user set show similar some summarize symmetric system_user table tablesample then to
trailing true union unique unpivot update user using values variadic verbose when where window
with
"""
_RESERVED = frozenset(RESERVED_WORDS_TEXT.split())


def _no_nul(text: str, what: str) -> str:
    if "\x00" in text:
        raise ConfigError(f"a {what} contains a NUL character, which SQL cannot hold: {text!r}")
    return text


def quote_ident(name: object, quote: str = '"') -> str:
    """``name`` as an SQL identifier: plain lower-case non-reserved names as they are, any
    other name between ``quote`` characters with that character doubled inside."""
    text = _no_nul(str(name), "name")
    if _PLAIN.fullmatch(text) and text not in _RESERVED:
        return text
    return quote + text.replace(quote, quote * 2) + quote


def quote_relation(*parts: object) -> str:
    """A dotted relation name (``schema.table``) with every part quoted by :func:`quote_ident`."""
    return ".".join(quote_ident(p) for p in parts)


def quote_literal(value: object) -> str:
    """``value`` as a standard SQL string literal (single quotes doubled)."""
    return "'" + _no_nul(str(value), "value").replace("'", "''") + "'"
