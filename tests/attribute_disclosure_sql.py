"""The attribute-disclosure SQL (macros/gates/attribute_disclosure.sql) rendered with Jinja
outside dbt and run on DuckDB: for the unit tests (hand cases and random tables against the
core's reference) and bench/bench_arx_privacy.py (Adult against ARX)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import duckdb
import pandas as pd

from tests.macro_render import macro_caller

ROOT = Path(__file__).resolve().parents[1]
FILES = [ROOT / "macros" / "gates" / "attribute_disclosure.sql"]
MISSING = "<missing>"
CFG = {"record_id": "rid", "missing_label": MISSING}


def render(macro: str, combination: list[str], column: str, limits: dict[str, Any],
           hierarchy: str | None, ordered: bool, columns: Callable[[str], list[str]], *,
           string_type: str = "varchar", float_type: str = "double") -> str:
    """The SQL of ``default__<macro>`` on the tables ``truth`` (record id ``rid``, the
    released QIs) and ``src`` (``rid``, the sensitive column); ``columns(relation)`` names a
    relation's columns (the hierarchy's)."""
    ad = {"distinct_l": None, "entropy_l": None, "recursive_c": None, "recursive_l": None,
          "t": None, "ordered": [], "hierarchies": {}, **limits}

    def context(call: Callable[[str], Callable[..., Any]]) -> dict[str, Any]:
        return {
            "dbt_deid": SimpleNamespace(
                ident=lambda n: '"' + n + '"',
                literal=lambda v: "'" + str(v).replace("'", "''") + "'",
                release_input=lambda cfg: "src", nonzero=lambda e: f"nullif({e}, 0)",
                own=lambda m: m, type_double=lambda: float_type,
                attribute_disclosure_classes_sql=call("attribute_disclosure_classes_sql")),
            "dbt": SimpleNamespace(type_string=lambda: string_type, type_float=lambda: float_type),
            "adapter": SimpleNamespace(get_columns_in_relation=lambda relation: [
                                           SimpleNamespace(name=n) for n in columns(relation)],
                                       dispatch=lambda name, package: call("default__" + name)),
        }

    call = macro_caller(FILES, context)
    return str(call("default__" + macro)("truth", CFG, combination, column, ad, hierarchy,
                                         ordered))


def _duckdb_columns(con: duckdb.DuckDBPyConnection) -> Callable[[str], list[str]]:
    return lambda relation: [r[0] for r in con.execute(f"describe {relation}").fetchall()]


def class_figures_sql(con: duckdb.DuckDBPyConnection, combination: list[str], column: str,
                      limits: dict[str, Any], *, hierarchy: str | None = None,
                      ordered: bool = False) -> pd.DataFrame:
    """The per-class figures of ``combination`` x ``column`` as the gate computes them;
    ``hierarchy`` names a table of the column's hierarchy (leaf first, then each level)."""
    sql = render("attribute_disclosure_classes_sql", combination, column, limits, hierarchy,
                 ordered, _duckdb_columns(con))
    return con.execute(sql).df()


def figures_sql(con: duckdb.DuckDBPyConnection, combination: list[str], column: str,
                limits: dict[str, Any], *, hierarchy: str | None = None,
                ordered: bool = False) -> dict[str, Any]:
    """The gate's one row of figures (attribute_disclosure_figures_sql) as a dict."""
    sql = render("attribute_disclosure_figures_sql", combination, column, limits, hierarchy,
                 ordered, _duckdb_columns(con))
    return con.execute(sql).df().iloc[0].to_dict()
