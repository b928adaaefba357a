"""The mixed-level combined view and its exact check (issue 32, item 2) on PostgreSQL: the
package's macros combined_levels_view_sql and exact_levels_summary_sql rendered outside dbt
(tests/combined_levels_sql.py) and run on a private PostgreSQL server (initdb + pg_ctl, a Unix
socket of its own: tests/integration/postgres_server.py), held to the same reference as on
DuckDB (tests/combined_view_check.py): the hand-counted case, the two gaps the review found
(a stored release without its level, a value changed at a middle level of three) and random
releases at three levels (the tests of tests/unit/test_combined_levels_sql.py, collected here
with this module's engine). No dbt build: a few seconds, most of them the server's start.
"""

from __future__ import annotations

import importlib.util
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.combined_levels_sql import Execute
from tests.integration.postgres_server import pg_bindir, start_postgres
from tests.unit.test_combined_levels_sql import (  # noqa: F401 - collected here, on PostgreSQL
    test_a_store_release_without_its_level_is_not_read_at_the_candidates_level,
    test_a_value_changed_at_a_middle_level_is_a_conflict,
    test_the_finest_cell_and_consistency_at_each_cells_level,
    test_the_sql_agrees_with_the_reference,
)

pytestmark = pytest.mark.engines


@pytest.fixture(scope="module")
def execute() -> Iterator[Execute]:
    """The SQL on a private PostgreSQL server (this module's tests are the unit tests of
    test_combined_levels_sql.py, whose ``execute`` is DuckDB in memory)."""
    if importlib.util.find_spec("psycopg2") is None:
        pytest.skip("psycopg2 is not installed (pip install 'dbt_deid[postgres]')")
    if pg_bindir() is None:
        pytest.skip("initdb/pg_ctl not found (apt-get install postgresql-15)")
    base = Path(tempfile.mkdtemp(prefix="dbt_deid_pg_levels_"))
    server = start_postgres(base / "pg")
    try:
        con = server.connect()
        con.autocommit = True

        def run(sql: str) -> list[tuple]:
            with con.cursor() as cur:
                cur.execute(sql)
                return cur.fetchall() if cur.description else []

        yield run
        con.close()
    finally:
        server.stop()
        shutil.rmtree(base, ignore_errors=True)
