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


def _render(con: duckdb.DuckDBPyConnection, macro: str, combination: list[str], column: str,
            limits: dict[str, Any], hierarchy: str | None, ordered: bool) -> str:
    """The SQL of ``default__<macro>`` on the DuckDB tables ``truth`` (record id ``rid``, the
    released QIs) and ``src`` (``rid``, the sensitive column)."""
    ad = {"distinct_l": None, "entropy_l": None, "recursive_c": None, "recursive_l": None,
          "t": None, "ordered": [], "hierarchies": {}, **limits}

    def columns(relation: str) -> list[Any]:
        return [SimpleNamespace(name=r[0]) for r in con.execute(f"describe {relation}").fetchall()]

    def context(call: Callable[[str], Callable[..., Any]]) -> dict[str, Any]:
        return {
            "dbt_deid": SimpleNamespace(
                ident=lambda n: '"' + n + '"',
                literal=lambda v: "'" + str(v).replace("'", "''") + "'",
                release_input=lambda cfg: "src", nonzero=lambda e: f"nullif({e}, 0)",
                own=lambda m: m,
                attribute_disclosure_classes_sql=call("attribute_disclosure_classes_sql")),
            "dbt": SimpleNamespace(type_string=lambda: "varchar", type_float=lambda: "double"),
            "adapter": SimpleNamespace(get_columns_in_relation=columns,
                                       dispatch=lambda name, package: call("default__" + name)),
        }

    call = macro_caller(FILES, context)
    return str(call("default__" + macro)("truth", CFG, combination, column, ad, hierarchy,
                                         ordered))


def class_figures_sql(con: duckdb.DuckDBPyConnection, combination: list[str], column: str,
                      limits: dict[str, Any], *, hierarchy: str | None = None,
                      ordered: bool = False) -> pd.DataFrame:
    """The per-class figures of ``combination`` x ``column`` as the gate computes them;
    ``hierarchy`` names a table of the column's hierarchy (leaf first, then each level)."""
    sql = _render(con, "attribute_disclosure_classes_sql", combination, column, limits,
                  hierarchy, ordered)
    return con.execute(sql).df()


def figures_sql(con: duckdb.DuckDBPyConnection, combination: list[str], column: str,
                limits: dict[str, Any], *, hierarchy: str | None = None,
                ordered: bool = False) -> dict[str, Any]:
    """The gate's one row of figures (attribute_disclosure_figures_sql) as a dict."""
    sql = _render(con, "attribute_disclosure_figures_sql", combination, column, limits,
                  hierarchy, ordered)
    return con.execute(sql).df().iloc[0].to_dict()
