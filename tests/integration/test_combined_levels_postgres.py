"""The mixed-level combined view and its exact check (issue 32, item 2) on PostgreSQL: the
package's macros combined_levels_view_sql and exact_levels_summary_sql rendered outside dbt
(tests/combined_levels_sql.py) and run on a private PostgreSQL server (initdb + pg_ctl, a Unix
socket of its own: tests/integration/postgres_server.py), held to the same reference as on
DuckDB (tests/combined_view_check.py): the hand-counted case, the two gaps the review found
(a stored release without its level, a value changed at a middle level of three) and random
releases at three levels. No dbt build: a few seconds, most of them the server's start.
"""

from __future__ import annotations

import importlib.util
import random
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.combined_levels_sql import (
    COLUMNS,
    HIERARCHY,
    UP,
    Execute,
    load,
    random_releases,
    reference_rows,
    release,
    sql_rows,
    view_and_figures,
)
from tests.combined_view_check import mixed_level_figures, mixed_level_view
from tests.integration.postgres_server import pg_bindir, start_postgres

pytestmark = pytest.mark.engines


@pytest.fixture(scope="module")
def pg() -> Iterator[Execute]:
    if importlib.util.find_spec("psycopg2") is None:
        pytest.skip("psycopg2 is not installed (pip install 'dbt_deid[postgres]')")
    if pg_bindir() is None:
        pytest.skip("initdb/pg_ctl not found (apt-get install postgresql-15)")
    base = Path(tempfile.mkdtemp(prefix="dbt_deid_pg_levels_"))
    server = start_postgres(base / "pg")
    try:
        con = server.connect()
        con.autocommit = True

        def execute(sql: str) -> list[tuple]:
            with con.cursor() as cur:
                cur.execute(sql)
                return cur.fetchall() if cur.description else []

        yield execute
        con.close()
    finally:
        server.stop()
        shutil.rmtree(base, ignore_errors=True)


def _run(execute: Execute, releases, combinations, k, **kwargs):
    load(execute, COLUMNS, releases, HIERARCHY)
    return view_and_figures(execute, COLUMNS, releases, combinations, k, **kwargs)


def test_hand_counted_and_the_two_gaps_on_postgres(pg):
    truth = {1: ("33", "a1"), 2: ("33", "a1"), 3: ("33", "a2"), 4: ("33", "b1")}
    coarse = release({"age": 1, "diag": 1}, truth, {(4, "diag")})
    fine = release({"age": 1, "diag": 0}, truth, {(3, "diag"), (4, "diag")})
    assert _run(pg, [coarse, fine], [COLUMNS], 3)[1] == {"age+diag": (1, 2)}
    # a stored release without its level: flagged, never read at the candidate's level
    same = {r: ("33", "a1") for r in range(1, 7)}
    three = [release({"age": 1, "diag": 1}, same), release({"age": 1, "diag": 2}, same),
             release({"age": 1, "diag": 0}, same)]
    rows, _figures = _run(pg, three, [COLUMNS], 3, listed=[0])
    assert len(rows) == 6 and all(r["deid_unlisted"] == 1 for r in rows)
    # a value changed at the middle level of three: a conflict
    others = {r: ("33", "a2") for r in range(2, 8)}
    moved = [release({"age": 1, "diag": 0}, {1: ("33", "a1"), **others}),
             release({"age": 1, "diag": 1}, {1: ("33", "b1"), **others}),
             release({"age": 1, "diag": 2}, {1: ("33", "b1"), **others})]
    rows, _figures = _run(pg, moved, [COLUMNS], 3)
    assert sorted(r["deid_conflict"] for r in rows) == [0] * 6 + [1]


@pytest.mark.parametrize("seed", range(6))
def test_the_sql_agrees_with_the_reference_on_postgres(pg, seed):
    rng = random.Random(seed)
    releases = random_releases(rng, 3)
    combinations = [COLUMNS, ["diag"]]
    k = rng.choice([2, 3, 5])
    rows, figures = _run(pg, releases, combinations, k)
    assert sql_rows(rows, releases) == reference_rows(mixed_level_view(COLUMNS, releases, UP))
    assert figures == mixed_level_figures(COLUMNS, releases, combinations, k, UP)
