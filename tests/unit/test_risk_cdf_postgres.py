"""PostgreSQL's ``risk_cdf_sql`` (issue 37, session 16): each combination's class-size
histogram read off the tuples' window sums instead of a second GROUP BY of the tuples. Rendered
with Jinja (no dbt run) and run on DuckDB in memory against ``default__`` (El Emam et al. 2009
(CJHP), Figure 4: the risk CDF per combination and for the whole release) on random tables with
suppressed (NULL) cells: record-level and pattern tables, a parenthesised query, one and several
combinations, combinations sharing their columns, and the original stage's columns shared by
two QIs (same_values)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import duckdb
import pytest

from tests.macro_render import macro_caller
from tests.unit.test_smallest_class_patterns import COMBINATIONS, _table

ROOT = Path(__file__).resolve().parents[2]
FILES = [*sorted((ROOT / "macros" / "risk").glob("*.sql")),
         ROOT / "macros" / "risk_suite" / "diagnostics_sql.sql",
         ROOT / "macros" / "risk_suite" / "risk_cdf_at_size.sql",
         ROOT / "macros" / "risk_suite" / "risk_cdf_postgres.sql"]


def _call(key: Any = None) -> Any:
    """The macros; ``key``: postgres_partition_key_sql's stand-in (default: DuckDB's ``hash``
    of the columns, a function of their values as PostgreSQL's hash_record_extended is; the
    PostgreSQL form itself runs on PostgreSQL in
    tests/integration/test_combined_levels_postgres.py)."""
    return macro_caller(FILES, lambda call: {
        "dbt_deid": SimpleNamespace(
            ident=lambda n: '"' + n + '"', literal=lambda v: "'" + str(v).replace("'", "''") + "'",
            postgres_partition_key_sql=key or (lambda cols: "hash(" + ", ".join(cols) + ")"),
            risk_stage_columns=call("default__risk_stage_columns"),
            risk_cdf_at_size_sql=call("risk_cdf_at_size_sql"),
            smallest_class_patterns_sql=call("default__smallest_class_patterns_sql"),
            class_sizes_sql=call("default__class_sizes_sql"),
            cte_computed_once=lambda sql: sql),
        "dbt": SimpleNamespace(type_bigint=lambda: "bigint")})


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("combinations",
                         [COMBINATIONS, [["a", "b", "c"]], [["b", "a"], ["a", "b"]]])
def test_postgres_form_equals_the_default(seed: int, combinations: list[list[str]]) -> None:
    con = duckdb.connect()
    _table(con, seed)
    con.execute("create or replace table orig as select rid, a as a__original,"
                " b as b__original, c as c__original, d as d__original from recs")
    call = _call()
    cases = [(relation, count, "published", None)
             for relation, count in (("recs", None), ("pats", "n"), ("(select * from pats)", "n"))]
    # the original stage: b released from a's source column shares its __original column
    cases.append(("orig", None, "original", {"b": "a"}))
    for relation, count, stage, same in cases:
        want_sql = str(call("default__risk_cdf_sql")(relation, "rid", combinations, stage, count,
                                                     same))
        got_sql = str(call("postgres__risk_cdf_sql")(relation, "rid", combinations, stage, count,
                                                     same))
        assert "deid_classes_in" in want_sql and "deid_classes_in" not in got_sql
        want = con.execute(f"select * from ({want_sql}) as w order by all").fetchall()
        got = con.execute(f"select * from ({got_sql}) as g order by all").fetchall()
        assert got == want and len(got) > len(combinations), (relation, stage)
        types = [con.execute(f"select typeof(columns(*)) from ({q}) as t limit 1").fetchall()
                 for q in (want_sql, got_sql)]
        assert types[0] == types[1]
