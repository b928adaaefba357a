"""A Python model's frame written to PostgreSQL by ``python -m dbt_deid build`` (issue 37,
session 19), on a private PostgreSQL server (tests/integration/postgres_server.py), no dbt
build: the COPY by Arrow's CSV writer (postgres_copy_frame) writes the rows the former
Python-built CSV (postgres_copy_csv) wrote, with the same column types, nulls distinct from
empty strings; and ``AdapterFrames.write`` is one transaction that a failure rolls back: the old
table stays, no ``__dbt_deid_tmp`` table is left, and the connection serves the next model.
"""

from __future__ import annotations

import datetime as dt
import decimal
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd
import pytest

from tests.integration.postgres_server import PostgresServer, module_server

pytestmark = pytest.mark.engines


@pytest.fixture(scope="module")
def server() -> Iterator[PostgresServer]:
    """A private PostgreSQL server for this module."""
    yield from module_server("dbt_deid_pg_write_")


class _Unprintable:
    """A value whose text cannot be made: the CSV's construction fails mid-write."""

    def __str__(self) -> str:
        raise ValueError("no text")


def _frame() -> pd.DataFrame:
    """Every column kind the write types (int, float, bool, datetime, date, text), with nulls,
    empty strings, CSV's special characters, PostgreSQL's end-of-data marker and 'NULL' as
    text, text columns holding other values, nullable and extreme numbers."""
    return pd.DataFrame({
        "t": ["a", "", None, 'q"uo""te', "com,ma", "new\nline\r\n", "\\.", "NULL",
              "\u00e9\u2603 \u4e2d", " lead"],
        "mixed": ["x", 1, 2.5, None, float("nan"), decimal.Decimal("1.10"), np.int64(3), True,
                  "", -0.0],
        "i": pd.array([1, None, -3, 2**62, 0, 5, 6, 7, -(2**63), 9], dtype="Int64"),
        "ni": np.array([1, 2, 3, -4, 5, 6, 7, -(2**63), 2**63 - 1, 0], dtype=np.int64),
        "b": [True, False, None, True, np.bool_(False), True, None, False, True, True],
        "nb": np.array([True, False] * 5),
        "bn": pd.array([True, None, False] * 3 + [None], dtype="boolean"),
        "fl": [0.1, float("nan"), float("inf"), -float("inf"), -0.0, 1e300, 2.5e-10, 3.0,
               5e-324, 1 / 3],
        "f32": np.array([0.1, 1.5, -2.25, 3.4e38, 0, 1e-30, 7, 8, 9, 10], dtype=np.float32),
        "allnull": [None] * 10,
        "s": pd.array(["a", None, "b", "", "c", "d", '"', ",", "\\N", "x"], dtype="string"),
        "d": [dt.date(2020, 1, 2)] * 9 + [None],
        "ts": pd.to_datetime(["2020-01-02 03:04:05.123456"] * 9 + [None]),
    })


def _table(cur: Any, name: str, frame: pd.DataFrame) -> list[str]:
    """Create ``name`` with the write's column types; the frame's kinds."""
    from dbt_deid.dbt_side.engine.python_nodes import _TYPES, column_kind

    kinds = [column_kind(frame[c]) for c in frame.columns]
    cols = ", ".join(f'"{c}" {_TYPES["default"][k]}' for c, k in zip(frame.columns, kinds,
                                                                     strict=True))
    cur.execute(f"drop table if exists {name}")
    cur.execute(f"create table {name} ({cols})")
    return kinds


def _rows(cur: Any, name: str) -> list[tuple]:
    cur.execute(f"select * from {name}")
    return cur.fetchall()


def test_the_arrow_copy_writes_the_rows_the_python_copy_wrote(server: PostgresServer) -> None:
    """postgres_copy_frame and the former postgres_copy_csv write the same rows (EXCEPT ALL
    both ways, and the rows fetched in order), the whole frame and every column alone; the
    values read back are the frame's: nulls where it has NA/None/NaN, an empty string as an
    empty string, 'NULL' and '\\.' as text, -0.0 and the float extremes exact, float32
    widened exactly; a frame of no rows writes none."""
    import io

    from dbt_deid.dbt_side.engine.python_nodes import postgres_copy_bytes, postgres_copy_frame
    from tests.postgres_copy_reference import postgres_copy_csv

    frame = _frame()
    con = server.connect()
    try:
        with con.cursor() as cur:
            for cols in [list(frame.columns), *([c] for c in frame.columns)]:
                part = frame[cols]
                kinds = _table(cur, "w_old", part)
                _table(cur, "w_new", part)
                cur.copy_expert("copy w_old from stdin with (format csv)",
                                postgres_copy_csv(part, kinds))
                built, copied = postgres_copy_frame(cur, "w_new", part, kinds)
                assert built >= 0 and copied >= 0
                for a, b in (("w_old", "w_new"), ("w_new", "w_old")):
                    assert _rows(cur, f"(select * from {a} except all select * from {b}) as d"
                                 ) == [], (cols, a)
                assert _rows(cur, "w_new") == _rows(cur, "w_old"), cols
            con.rollback()
            kinds = _table(cur, "w_new", frame)
            postgres_copy_frame(cur, "w_new", frame, kinds)
            rows = _rows(cur, "w_new")
            assert [r[0] for r in rows] == ["a", "", None, 'q"uo""te', "com,ma",
                                            "new\nline\r\n", "\\.", "NULL",
                                            "\u00e9\u2603 \u4e2d", " lead"]
            assert [r[1] for r in rows] == ["x", "1", "2.5", None, None, "1.10", "3", "True",
                                            "", "-0.0"]
            assert [r[2] for r in rows] == [1, None, -3, 2**62, 0, 5, 6, 7, -(2**63), 9]
            assert [r[4] for r in rows] == [True, False, None, True, False, True, None, False,
                                            True, True]
            assert [r[6] for r in rows] == [True, None, False] * 3 + [None]
            fl = [r[7] for r in rows]
            assert fl[1] is None and fl[2] == float("inf") and fl[3] == -float("inf")
            assert [fl[i] for i in (0, 5, 6, 7, 8, 9)] == [0.1, 1e300, 2.5e-10, 3.0, 5e-324,
                                                           1 / 3]
            assert str(fl[4]) == "-0.0"
            assert [r[8] for r in rows] == [float(x) for x in frame["f32"]]
            assert all(r[9] is None for r in rows)
            assert [r[10] for r in rows] == ["a", None, "b", "", "c", "d", '"', ",", "\\N", "x"]
            assert [r[11] for r in rows] == [dt.date(2020, 1, 2)] * 9 + [None]
            assert rows[0][12] == dt.datetime(2020, 1, 2, 3, 4, 5, 123456) and rows[9][12] is None
            kinds = _table(cur, "w_empty", frame.iloc[:0])
            postgres_copy_frame(cur, "w_empty", frame.iloc[:0], kinds)
            assert _rows(cur, "w_empty") == []
            assert postgres_copy_bytes(frame.iloc[:0], kinds).getvalue() == b""
            # a column that is null in every row: a row of one null is an empty line
            one = pd.DataFrame({"x": [None, "a", None]})
            kinds = _table(cur, "w_one", one)
            postgres_copy_frame(cur, "w_one", one, kinds)
            assert _rows(cur, "w_one") == [(None,), ("a",), (None,)]
            assert isinstance(postgres_copy_bytes(one, kinds), io.BytesIO)
        con.rollback()
    finally:
        con.close()


class _Connections:
    """dbt-postgres's connection manager as AdapterFrames uses it, on one psycopg2 connection:
    ``add_query`` opens the transaction (psycopg2 begins it) and rolls it back when its own
    statement fails (dbt-postgres's ``exception_handler``); ``commit``; ``rollback_if_open``."""

    def __init__(self, con: Any) -> None:
        self.handle = con
        self.transaction_open = False

    def get_thread_connection(self) -> _Connections:
        return self

    def add_query(self, sql: str, auto_begin: bool = True) -> tuple[Any, Any]:
        import psycopg2

        if auto_begin:
            self.transaction_open = True
        cur = self.handle.cursor()
        try:
            cur.execute(sql)
        except psycopg2.DatabaseError:
            self.rollback_if_open()
            raise
        return self, cur

    def commit(self) -> None:
        self.handle.commit()
        self.transaction_open = False

    def rollback_if_open(self) -> None:
        if self.transaction_open:
            self.handle.rollback()
        self.transaction_open = False


class _Adapter:
    """The parts of a dbt PostgreSQL adapter that AdapterFrames.write uses."""

    def __init__(self, con: Any) -> None:
        from dbt.adapters.postgres.relation import PostgresRelation

        self.Relation = PostgresRelation
        self.connections = _Connections(con)

    def type(self) -> str:
        return "postgres"

    def quote(self, name: str) -> str:
        return '"' + name.replace('"', '""') + '"'

    def create_schema(self, relation: Any) -> None:
        self.connections.add_query(f'create schema if not exists "{relation.schema}"')


def test_a_failed_write_leaves_the_old_table_and_the_connection_usable(
        server: PostgresServer) -> None:
    """AdapterFrames.write on PostgreSQL: a write that fails in the server's COPY (a NUL
    character, which PostgreSQL's text refuses) or while its CSV is built (a value without
    text) after its ``__dbt_deid_tmp`` table was created leaves the model's old table as it
    was and no ``__dbt_deid_tmp`` table, and the next model's write on the same connection
    succeeds. The old code left the failed transaction open: after the COPY's failure the next
    write failed ("current transaction is aborted"), after the CSV's the next write's commit
    kept the failed model's ``__dbt_deid_tmp`` table."""
    import psycopg2

    from dbt_deid.dbt_side.engine.adapter_io import AdapterFrames

    def node(name: str) -> SimpleNamespace:
        return SimpleNamespace(alias=name, name=name, database="postgres", schema="s19w")

    con = server.connect()
    check = server.connect()
    check.autocommit = True
    try:
        frames = AdapterFrames(manifest=None)
        frames.adapter = _Adapter(con)
        good = pd.DataFrame({"k": ["a", "", None], "n": [1, 2, 3]})
        assert frames.write(node("m_old"), good) == 3
        assert "COPY" in frames.write_detail
        bad_server = pd.DataFrame({"k": ["a", "nul\x00here"], "n": [1, 2]})
        bad_python = pd.DataFrame({"k": ["a", _Unprintable()], "n": [1, 2]})
        for i, (bad, error) in enumerate(((bad_server, psycopg2.Error),
                                          (bad_python, ValueError))):
            with pytest.raises(error):
                frames.write(node("m_old"), bad)
            nxt = pd.DataFrame({"k": [f"next{i}"], "n": [i]})
            assert frames.write(node(f"m_next{i}"), nxt) == 1
            with check.cursor() as cur:
                assert _rows(cur, 's19w."m_old"') == [("a", 1), ("", 2), (None, 3)]
                assert _rows(cur, f's19w."m_next{i}"') == [(f"next{i}", i)]
                cur.execute("select table_name from information_schema.tables where"
                            " table_schema = 's19w' and table_name like '%dbt_deid_tmp'")
                assert cur.fetchall() == []
        # the replaced table has the frame's rows and types
        assert frames.write(node("m_old"), pd.DataFrame({"k": ["z"], "n": [9]})) == 1
        with check.cursor() as cur:
            assert _rows(cur, 's19w."m_old"') == [("z", 9)]
            cur.execute("select column_name, data_type from information_schema.columns where"
                        " table_schema = 's19w' and table_name = 'm_old'"
                        " order by ordinal_position")
            assert cur.fetchall() == [("k", "text"), ("n", "bigint")]
    finally:
        con.close()
        check.close()


def test_the_copy_writes_the_frames_text_whatever_the_client_encoding(
        server: PostgresServer) -> None:
    """Review 20, F-C: the CSV is UTF-8, so the COPY says so (its ``encoding`` option). A
    client whose encoding is LATIN1 (``PGCLIENTENCODING``, or a LATIN1 database's default)
    got 'Qu\u00e9bec' written as 'Qu\u00c3\u00a9bec' with no error before; now the server
    converts the UTF-8 text and stores the frame's value, and a value the database's encoding
    cannot hold is an error (nothing written), never a changed value."""
    import psycopg2

    from dbt_deid.dbt_side.engine.python_nodes import postgres_copy_frame

    values = ["Qu\u00e9bec", "na\u00efve", "", None, "plain"]
    frame = pd.DataFrame({"t": pd.Series(values, dtype=object)})
    con = server.connect()
    try:
        con.set_client_encoding("LATIN1")
        with con.cursor() as cur:
            kinds = _table(cur, "w_latin1", frame)
            postgres_copy_frame(cur, "w_latin1", frame, kinds)
            assert [r[0] for r in _rows(cur, "w_latin1")] == values
        con.rollback()
        con.set_client_encoding("UTF8")
        con.autocommit = True
        with con.cursor() as cur:
            cur.execute("select 1 from pg_database where datname = 'lat'")
            if not cur.fetchall():
                cur.execute("create database lat encoding 'LATIN1' lc_collate 'C' lc_ctype 'C' "
                            "template template0")
    finally:
        con.close()
    lat = psycopg2.connect(host=str(server.socket_dir), port=server.port, user=server.user,
                           dbname="lat")
    try:
        with lat.cursor() as cur:
            kinds = _table(cur, "w_lat", frame)
            postgres_copy_frame(cur, "w_lat", frame, kinds)
            assert [r[0] for r in _rows(cur, "w_lat")] == values
            lat.rollback()
            snow = pd.DataFrame({"t": ["a", "snow \u2603"]})
            kinds = _table(cur, "w_snow", snow)
            with pytest.raises(psycopg2.DataError):
                postgres_copy_frame(cur, "w_snow", snow, kinds)
        lat.rollback()
    finally:
        lat.close()
