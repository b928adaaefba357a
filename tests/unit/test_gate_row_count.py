"""The row-count gate (records are never silently dropped) on the pattern table with its count
column: an empty table must fail against a non-empty input, and an empty fingerprint table must
fail too (NULL <> n is unknown, so without coalesce neither returned a failing row). Rendered
outside dbt from macros/gates/gates.sql and run on DuckDB."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import duckdb
import pytest

from tests.macro_render import macro_caller

ROOT = Path(__file__).resolve().parents[2]


def render(relation: str, fingerprint: str | None, count_column: str | None = "n") -> str:
    call = macro_caller([ROOT / "macros" / "gates" / "gates.sql"], lambda call: {
        "dbt_deid": SimpleNamespace(ident=lambda n: n, source_input=lambda cfg: "source"),
        "dbt": SimpleNamespace()})
    return str(call("default__gate_row_count_sql")(
        relation, SimpleNamespace(sample=None), count_column, fingerprint))


@pytest.fixture()
def con() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute("create table source as select range as id from range(5)")
    con.execute("create table fp as select 5::bigint as input_rows")
    con.execute("create table fp_empty (input_rows bigint)")
    con.execute("create table patterns (a varchar, n bigint)")
    con.execute("create table patterns_full as select 'x' as a, 5::bigint as n")
    return con


@pytest.mark.parametrize(("relation", "fingerprint", "fails"), [
    ("patterns", "fp", True),             # empty release, five input records
    ("patterns", None, True),             # the same, counting the input
    ("patterns_full", "fp", False),       # every record released
    ("patterns_full", "fp_empty", True),  # no fingerprint row: nothing to compare with
])
def test_row_count_gate_fails_on_an_empty_side(con, relation: str, fingerprint: str | None,
                                               fails: bool) -> None:
    rows = con.execute(render(relation, fingerprint)).fetchall()
    assert bool(rows) is fails, rows
