"""The widest select list of a rendered query: the number of columns its widest ``SELECT``
(a CTE, a subquery or the outer query) produces, ``*`` and ``alias.*`` expanded to the width of
the CTE they read (a base table's star counts 0). PostgreSQL refuses a select list of more than
1,664 entries and a table of more than 1,600 columns (review 12 final, L2: the refresh's pairs
and the gate's linked check grew with the number of stored versions)."""

from __future__ import annotations

import sqlglot
from sqlglot import exp


def _width(select: exp.Select, ctes: dict[str, int]) -> int:
    sources: dict[str, int] = {}
    for table in select.find_all(exp.Table):
        if table.find_ancestor(exp.Select) is select:
            sources[table.alias_or_name] = ctes.get(table.name, 0)
    out = 0
    for e in select.expressions:
        if isinstance(e, exp.Star):
            out += sum(sources.values())
        elif isinstance(e, exp.Column) and isinstance(e.this, exp.Star):
            out += sources.get(e.table, 0)
        else:
            out += 1
    return out


def widest_select(sql: str, dialect: str = "duckdb") -> int:
    """The widest select list of ``sql`` (module docstring)."""
    tree = sqlglot.parse_one(sql, read=dialect)
    ctes: dict[str, int] = {}
    widest = 0
    for cte in tree.find_all(exp.CTE):
        inner = cte.this
        width = max((_width(s, ctes) for s in inner.find_all(exp.Select)), default=0)
        ctes[cte.alias] = _width(inner, ctes) if isinstance(inner, exp.Select) else width
        widest = max(widest, width)
    for s in tree.find_all(exp.Select):
        widest = max(widest, _width(s, ctes))
    return widest
