"""The readers of current_patterns (macros/releases/refresh_line.sql) given its subquery (review
9, G3): in a refresh of a living discharge line, deid_patterns holds the pairs of the earlier
and current states, and current_patterns hands its readers a parenthesised query regrouping
the current tuples, which they put straight into a FROM: risk_summary_sql (class_sizes_sql) in
deid_risk_summary and risk_cdf_sql (smallest_class_patterns_sql) in deid_diagnostics.
PostgreSQL before 16 refuses a subquery in FROM without an alias ("subquery in FROM must have
an alias"), so version 2 of a living line was never published there (on da67971: deid_risk_summary
failed); DuckDB and Spark accept it. Rendered with Jinja outside dbt and run on DuckDB in memory
(tests/integration/test_combined_levels_postgres.py collects this test again on a private
PostgreSQL server), held to the same macros read from a table of the regrouped tuples.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import duckdb
import pytest

from tests.macro_render import macro_caller

ROOT = Path(__file__).resolve().parents[2]
Execute = Callable[[str], list[tuple]]
MACROS = ["current_patterns", "risk_summary_sql", "class_sizes_sql", "risk_cdf_sql",
          "risk_stage_columns", "smallest_class_patterns_sql", "cte_computed_once",
          "risk_cdf_at_size_sql"]
QIS = ["age", "sex"]
#: the refresh's pairs: current tuple (None: a state no longer current), earlier tuple, n
PAIRS = [("30", "F", "30", "F", 3), ("30", "F", None, None, 1), ("40", "M", "40", "M", 2),
         ("40", "M", "40", "F", 1), ("50", "F", None, None, 1), (None, None, "60", "M", 4)]


@pytest.fixture
def execute() -> Execute:
    """DuckDB in memory (test_combined_levels_postgres.py: its own fixture, PostgreSQL)."""
    con = duckdb.connect()
    return lambda sql: con.execute(sql).fetchall()


def _files(names: list[str]) -> list[Path]:
    """The macro files defining `names`, wherever they live in macros/ (a fold may move them)."""
    out: list[Path] = []
    for path in sorted((ROOT / "macros").rglob("*.sql")):
        text = path.read_text()
        if any(re.search(r"{%-?\s*macro\s+" + n + r"\(", text) for n in names) and path not in out:
            out.append(path)
    return out


def _call() -> Callable[[str], Callable[..., object]]:
    columns = [*QIS, *(q + "__earlier" for q in QIS), "n"]
    return macro_caller(_files(MACROS), lambda call: {
        "execute": True,
        "adapter": SimpleNamespace(
            get_columns_in_relation=lambda rel: [SimpleNamespace(name=c) for c in columns],
            dispatch=lambda name, package: call("default__" + name)),
        "dbt": SimpleNamespace(type_bigint=lambda: "bigint"),
        "dbt_deid": SimpleNamespace(
            own=lambda m: m, can_inspect=lambda rel: True, ident=lambda n: '"' + n + '"',
            literal=lambda v: "'" + str(v).replace("'", "''") + "'",
            **{m: call(m) for m in MACROS if m != "current_patterns"}),
    })


def test_the_readers_alias_current_patterns_subquery(execute: Execute) -> None:
    execute("drop table if exists cp_pairs")
    execute("drop table if exists cp_current")
    execute("create table cp_pairs (age varchar, sex varchar, age__earlier varchar,"
            " sex__earlier varchar, n bigint)")
    values = ", ".join("(" + ", ".join("null" if v is None else repr(v) if isinstance(v, int)
                                       else f"'{v}'" for v in row) + ")" for row in PAIRS)
    execute(f"insert into cp_pairs values {values}")
    execute("create table cp_current as select age, sex, sum(n) as n from cp_pairs"
            " where age is not null group by age, sex")
    call = _call()
    sub = call("current_patterns")(SimpleNamespace(qi_names=QIS, sensitive=[]), "cp_pairs")
    assert isinstance(sub, str) and sub.startswith("(select ")  # the refresh's form
    combos = [["age", "sex"], ["sex"]]
    for name, args in [("risk_summary_sql", (combos, 2, 0.5, "generalized", "n")),
                       ("risk_cdf_sql", ("rid", combos, "generalized", "n"))]:
        from_sub = execute(str(call(name)(sub, *args)))
        from_table = execute(str(call(name)("cp_current", *args)))
        assert sorted(map(repr, from_sub)) == sorted(map(repr, from_table)), name
        assert from_sub, name
    # the current tuples: 30/F 4, 40/M 3, 50/F 1 (the row of a state no longer current left out)
    summary = execute(str(call("risk_summary_sql")(sub, [["age", "sex"]], 2, 0.5, "generalized",
                                                   "n")))
    assert [(r[4], r[5], r[6]) for r in summary] == [(8, 3, 1)]
