"""The portable multiset difference (macros/gates/rows_not_in_sql.sql, issue 32): the line gates
of the claims and text releases publish a later version only when every row of it is a row of
the published version, multiplicity counted. That was `EXCEPT ALL`, which BigQuery and Snowflake
do not have; default__rows_not_in_sql is a UNION ALL and a GROUP BY every engine runs
(postgres__ keeps EXCEPT ALL, faster there: both forms are run on PostgreSQL). Rendered
with Jinja outside dbt and run on DuckDB in memory (test_combined_levels_postgres.py collects
these tests again on a private PostgreSQL server), held to `EXCEPT ALL` on the same engine:
duplicates, NULLs (equal to each other, as in EXCEPT, distinct from every value), a row held
more often by the new table than by the old one (not a subset), empty tables, quoted column
names, and random tables."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import duckdb
import pytest

from tests.macro_render import macro_caller

ROOT = Path(__file__).resolve().parents[2]
FILE = ROOT / "macros" / "gates" / "rows_not_in_sql.sql"
Execute = Callable[[str], list[tuple]]
#: a reserved word and a mixed-case name: the macro quotes every column
COLUMNS = ["id", "Group", "amount"]
Row = tuple[object, object, object]


@pytest.fixture
def execute() -> Execute:
    """DuckDB in memory (test_combined_levels_postgres.py: its own fixture, PostgreSQL)."""
    con = duckdb.connect()
    return lambda sql: con.execute(sql).fetchall()


@pytest.fixture
def forms() -> list[str]:
    """The dispatch prefixes whose form runs on this engine: DuckDB runs default__
    (test_combined_levels_postgres.py: default__ and postgres__)."""
    return ["default"]


def _rows_not_in_sql(left: str, right: str, prefix: str) -> str:
    call = macro_caller([FILE], lambda call: {
        "dbt_deid": SimpleNamespace(own=lambda m: m,
                                    ident=lambda n: '"' + n.replace('"', '""') + '"'),
        "adapter": SimpleNamespace(dispatch=lambda name, package: call(f"{prefix}__{name}")),
    })
    return call("rows_not_in_sql")(left, right, COLUMNS)


def _literal(v: object) -> str:
    if v is None:
        return "null"
    return str(v) if isinstance(v, int | float) else "'" + str(v).replace("'", "''") + "'"


def _load(execute: Execute, table: str, rows: Sequence[Row]) -> None:
    execute(f"drop table if exists {table}")
    execute(f'create table {table} (id integer, "Group" varchar, amount double precision)')
    if rows:
        execute(f"insert into {table} values "
                + ", ".join("(" + ", ".join(map(_literal, r)) + ")" for r in rows))


def _both(execute: Execute, forms: list[str], left: Sequence[Row],
          right: Sequence[Row]) -> tuple[int, int]:
    """(the macro's count, the count of `left EXCEPT ALL right`) on the same engine; every
    form of the macro the engine runs gives the same count."""
    _load(execute, "mset_left", left)
    _load(execute, "mset_right", right)
    ours = {prefix: execute(_rows_not_in_sql("mset_left", "mset_right", prefix))
            for prefix in forms}
    cols = ", ".join('"' + c + '"' for c in COLUMNS)
    theirs = execute(f"select count(*) from (select {cols} from mset_left except all"
                     f" select {cols} from mset_right) as e")
    assert all(len(rows) == 1 for rows in ours.values())
    counts = {int(rows[0][0]) for rows in ours.values()}
    assert len(counts) == 1, ours
    return counts.pop(), int(theirs[0][0])


A: Row = (1, "x", 2.5)
B: Row = (2, "y", None)
N: Row = (None, None, None)


@pytest.mark.parametrize(("left", "right", "expected"), [
    ([A, B, N], [N, B, A], 0),                  # identical, another order
    ([A, A, N], [A, A, A, N, B], 0),            # duplicates and NULLs: a subset
    ([A, A, A], [A, A], 1),                     # held more often by the new table: NOT a subset
    ([N, N], [N], 1),                           # the all-NULL row too (NULLs compare equal)
    ([(1, None, 2.5)], [(1, "x", 2.5)], 1),     # NULL is not a value
    ([(1, "x", None)], [(1, "x", 0.0)], 1),
    ([], [A], 0),                               # every row deleted
    ([A, B, B], [], 3),                         # nothing published to be a subset of
    ([A, B, B, N, N, N], [B, N], 4),
])
def test_the_count_is_except_alls(execute: Execute, forms: list[str], left: list[Row],
                                  right: list[Row], expected: int) -> None:
    assert _both(execute, forms, left, right) == (expected, expected)


def test_random_tables_agree_with_except_all(execute: Execute, forms: list[str]) -> None:
    rng = random.Random(32)
    values: list[list[Any]] = [[None, 1, 2], [None, "a", "b"], [None, 0.5, 1.5]]
    pool = [tuple(rng.choice(v) for v in values) for _ in range(12)]
    verdicts = set()
    for _ in range(25):
        old = [rng.choice(pool) for _ in range(rng.randint(0, 30))]
        # a later version: mostly rows of the old one (deletions), sometimes a row more
        new = rng.sample(old, rng.randint(0, len(old))) + [
            rng.choice(pool) for _ in range(rng.choice([0, 0, 1, 3]))]
        ours, theirs = _both(execute, forms, new, old)
        assert ours == theirs, (new, old)
        verdicts.add(ours == 0)
    assert verdicts == {True, False}  # both verdicts were tried
