"""The line lock (macros/gates/line_lock.sql, issue 32 item 2): two publish models of one source
in one dbt invocation each run in a transaction; the gate combined_releases updates the line's
row of deid_line_locks before it reads the store, so the second of two overlapping publishes
never reads the store without the first's rows. Rendered with Jinja outside dbt and run on
DuckDB in memory, two cursors standing for two dbt threads (each its own transaction): the
second's update of the same line fails with a write-write conflict (nothing it would write is
committed), another source's line does not wait for it, and a transaction that started before
the first committed fails too (DuckDB reads the snapshot of its start)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import duckdb
import pytest

from tests.macro_render import macro_caller

ROOT = Path(__file__).resolve().parents[2]
FILE = ROOT / "macros" / "gates" / "line_lock.sql"


def line_lock_caller(execute: Callable[[str], list[tuple]]):
    """The macros of line_lock.sql with `statement` and `run_query` on `execute` (one
    connection: its statements run in that connection's transaction)."""
    rel = "deid_line_locks"

    def statement(name: str, caller=None) -> str:
        execute(caller())
        return ""

    def run_query(sql: str) -> SimpleNamespace:
        rows = execute(sql)
        return SimpleNamespace(rows=rows, columns=[SimpleNamespace(
            values=lambda: [r[0] for r in rows])])

    def context(call):
        return {
            "dbt_deid": SimpleNamespace(
                own=lambda m: m, literal=lambda v: "'" + str(v).replace("'", "''") + "'",
                line_locks_relation=lambda truth: rel,
                line_source=lambda cfg: cfg["source"]),
            "dbt": SimpleNamespace(type_string=lambda: "varchar"),
            "adapter": SimpleNamespace(
                dispatch=lambda name, package: call("default__" + name),
                get_relation=lambda *a: (execute(
                    "select table_name from information_schema.tables"
                    f" where table_name = '{rel}'") or None),
                cache_added=lambda r: None),
            "statement": statement,
            "invocation_id": "inv",
            "run_query": run_query,
        }
    return macro_caller([FILE], context)


def _duckdb(con: Any) -> Callable[[str], list[tuple]]:
    def run(sql: str) -> list[tuple]:
        cur = con.execute(sql)
        return cur.fetchall() if cur.description else []
    return run


def _caller(con: Any):
    return line_lock_caller(_duckdb(con))


def test_overlapping_publishes_of_one_source_do_not_both_read_the_store() -> None:
    con = duckdb.connect()
    _caller(con)("ensure_line_locks")(None, ["main.discharge", "main.monthly", "main.discharge"])
    assert con.execute("select source_relation from deid_line_locks order by 1").fetchall() == [
        ("main.discharge",), ("main.monthly",)]
    a, b = con.cursor(), con.cursor()
    a.execute("begin")
    b.execute("begin")
    _caller(a)("lock_release_line")({"source": "main.discharge"}, None)
    # another source's line is not held up
    _caller(b)("lock_release_line")({"source": "main.monthly"}, None)
    with pytest.raises(duckdb.TransactionException, match="Conflict"):
        _caller(b)("lock_release_line")({"source": "main.discharge"}, None)
    b.execute("rollback")
    a.execute("commit")
    # a publish whose transaction began (and read) before the first committed fails too: its
    # snapshot would not hold the first's store rows
    a.execute("begin")
    b.execute("begin")
    b.execute("select count(*) from deid_line_locks").fetchall()
    _caller(a)("lock_release_line")({"source": "main.discharge"}, None)
    a.execute("commit")
    with pytest.raises(duckdb.TransactionException, match="Conflict"):
        _caller(b)("lock_release_line")({"source": "main.discharge"}, None)
    b.execute("rollback")
    # one after the other: no conflict
    b.execute("begin")
    _caller(b)("lock_release_line")({"source": "main.discharge"}, None)
    b.execute("commit")
    # ensure_line_locks adds only the rows it lacks
    _caller(con)("ensure_line_locks")(None, ["main.discharge", "main.other"])
    assert con.execute("select count(*) from deid_line_locks").fetchone()[0] == 3


def test_a_missing_lock_table_or_line_row_refuses() -> None:
    """Review of session 5: a lock table or a line's row that is missing locked nothing and
    said nothing (two cursors updated a missing row without a conflict), so two publishes of
    one source on two threads were never combined. Each is now a problem the gate
    combined_releases refuses with, naming what creates them (the model
    deid_release_history_init before issue 33, now the on-run-start hook prepare_release_tables)."""
    con = duckdb.connect()
    problems = _caller(con)("lock_release_line")({"source": "main.discharge"}, None)
    assert len(problems) == 1 and "deid_line_locks is missing" in problems[0]
    assert "prepare_release_tables" in problems[0]
    _caller(con)("ensure_line_locks")(None, ["main.monthly"])
    problems = _caller(con)("lock_release_line")({"source": "main.discharge"}, None)
    assert len(problems) == 1 and "holds no row for the source main.discharge" in problems[0]
    assert _caller(con)("lock_release_line")({"source": "main.monthly"}, None) == []


def test_a_release_sharing_records_with_another_source_locks_both_lines() -> None:
    """Issue 32 item 2, the line is the records: a release over a view (or a copy, a moved
    table) of a source whose releases share its records takes that source's row too
    (`also`, from line_lock_sources), so a publish of either line on another thread conflicts
    (DuckDB) or waits (PostgreSQL) instead of reading a store without the other's rows; the rows
    are taken in sorted order; a missing row of a shared line is a refusal, not a lock skipped."""
    con = duckdb.connect()
    _caller(con)("ensure_line_locks")(None, ["main.discharge", "main_moved.discharge_copy"])
    a, b = con.cursor(), con.cursor()
    a.execute("begin")
    b.execute("begin")
    assert _caller(a)("lock_release_line")({"source": "main_moved.discharge_copy"}, None,
                                           ["main.discharge"]) == []
    with pytest.raises(duckdb.TransactionException, match="Conflict"):
        _caller(b)("lock_release_line")({"source": "main.discharge"}, None)
    b.execute("rollback")
    a.execute("commit")
    problems = _caller(con)("lock_release_line")({"source": "main.discharge"}, None,
                                                 ["main.gone"])
    assert len(problems) == 1
    assert "holds no row for the source main.gone, whose releases share records" in problems[0]
