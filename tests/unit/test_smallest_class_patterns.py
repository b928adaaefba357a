"""DuckDB's ``smallest_class_patterns_sql`` (session 12): each combination's class sizes from a
GROUP BY joined back to the tuples instead of a window per combination. Rendered with Jinja (no
dbt run) and run on DuckDB in memory against ``default__`` on random tables with suppressed
(NULL) cells, record-level and pattern tables; and the risk CDF built on each (El Emam et al.
2009 (CJHP), Figure 4) is the same."""

from __future__ import annotations

import random
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import duckdb
import pandas as pd
import pytest

from tests.macro_render import macro_caller

ROOT = Path(__file__).resolve().parents[2]
FILES = [*sorted((ROOT / "macros" / "risk").glob("*.sql")),
         ROOT / "macros" / "risk_suite" / "diagnostics_sql.sql",
         ROOT / "macros" / "risk_suite" / "risk_cdf_at_size.sql"]


def _call(variant: str) -> Any:
    return macro_caller(FILES, lambda call: {
        "dbt_deid": SimpleNamespace(
            ident=lambda n: '"' + n + '"', literal=lambda v: "'" + str(v).replace("'", "''") + "'",
            risk_stage_columns=call("default__risk_stage_columns"),
            risk_cdf_at_size_sql=call("risk_cdf_at_size_sql"),
            smallest_class_patterns_sql=call(f"{variant}__smallest_class_patterns_sql"),
            class_sizes_sql=call("default__class_sizes_sql"),
            cte_computed_once=lambda sql: sql),
        "dbt": SimpleNamespace(type_bigint=lambda: "bigint")})


COMBINATIONS = [["a", "b"], ["a", "c"], ["b", "c", "d"], ["a", "b"]]


def _table(con: duckdb.DuckDBPyConnection, seed: int, rows: int = 400) -> None:
    rng = random.Random(seed)

    def value(choices: str) -> str | None:
        return None if rng.random() < 0.15 else rng.choice(choices)  # None: a suppressed cell

    frame = pd.DataFrame({"rid": range(rows), "a": [value("pqrs") for _ in range(rows)],
                          "b": [value("xy") for _ in range(rows)],
                          "c": [value("uvwz") for _ in range(rows)],
                          "d": [value("<missing>1") for _ in range(rows)]})
    con.register("frame_view", frame)
    con.execute("create or replace table recs as select * from frame_view")
    con.execute("create or replace table pats as select a, b, c, d, count(*) as n from recs"
                " group by all")


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("combinations", [COMBINATIONS, [["a", "b", "c"]]])
def test_duckdb_variant_equals_the_default(seed: int, combinations: list[list[str]]) -> None:
    con = duckdb.connect()
    _table(con, seed)
    default, duck = _call("default"), _call("duckdb")
    # a table of records, a pattern table, and a parenthesised query (current_patterns)
    for relation, count in (("recs", None), ("pats", "n"), ("(select * from pats)", "n")):
        want_sql = str(default("default__smallest_class_patterns_sql")(relation, combinations,
                                                                       count))
        got_sql = str(duck("duckdb__smallest_class_patterns_sql")(relation, combinations, count))
        assert "over (partition by" in want_sql and "over (" not in got_sql
        want = con.execute(f"select * from ({want_sql}) as w order by all").fetchall()
        got = con.execute(f"select * from ({got_sql}) as g order by all").fetchall()
        assert got == want and len(got) > 10
        types = [con.execute(f"select typeof(columns(*)) from ({q}) as t limit 1").fetchall()
                 for q in (want_sql, got_sql)]
        assert types[0] == types[1]
        cdf = []
        for caller in (default, duck):
            sql = caller("default__risk_cdf_sql")(relation, "rid", combinations, "published",
                                                  count)
            cdf.append(con.execute(f"select * from ({sql}) as c order by all").fetchall())
        assert cdf[0] == cdf[1] and cdf[0]
