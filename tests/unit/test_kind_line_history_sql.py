"""The claims and text line gate on a release history of an older package version
(macros/gates/kind_line.sql, kind_line_history_columns; issue 32): the publish model run alone
reads the history before anything adds this version's columns (the hook prepare_release_tables
adds them only next to a discharge release's published table). The columns
the line does without (line_json, input_relation, release_kind) read as null, as they read once
added; a missing column it cannot do without is a message, not a SQL error. Rendered with Jinja
outside dbt, the select list run on DuckDB in memory. (The whole gate on a history without
line_json: tests/integration/test_text_risk_dbt.py, the text line test.)"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import duckdb
import pytest

from tests.macro_render import macro_caller

ROOT = Path(__file__).resolve().parents[2]
FILE = ROOT / "macros" / "gates" / "kind_line.sql"
NOW = ["release_name", "release_version", "published_relation", "input_relation",
       "settings_json", "published_hash", "recorded_at", "line_json", "status", "release_kind"]


def _columns(con: duckdb.DuckDBPyConnection) -> list[str] | str:
    def names(rel: str) -> list[SimpleNamespace]:
        return [SimpleNamespace(name=r[0]) for r in con.execute(f"describe {rel}").fetchall()]
    call = macro_caller([FILE], lambda call: {
        "adapter": SimpleNamespace(get_columns_in_relation=names),
        "dbt": SimpleNamespace(type_string=lambda: "varchar"),
    })
    return call("kind_line_history_columns")("history")


@pytest.mark.parametrize("dropped", [[], ["line_json"], ["line_json", "input_relation",
                                                          "release_kind"]])
def test_columns_an_older_history_lacks_read_as_null(dropped: list[str]) -> None:
    con = duckdb.connect()
    kept = [c for c in NOW if c not in dropped]
    con.execute("create table history (" + ", ".join(
        f"{c} {'bigint' if c == 'release_version' else 'varchar'}" for c in kept) + ")")
    con.execute("insert into history (" + ", ".join(kept) + ") values (" + ", ".join(
        "1" if c == "release_version" else f"'{c}'" for c in kept) + ")")
    read = _columns(con)
    assert isinstance(read, list)
    row = con.execute("select * from (select " + ", ".join(read) + " from history) as h").fetchall()
    assert [d[0] for d in con.description] == NOW
    assert row == [tuple(None if c in dropped else (1 if c == "release_version" else c)
                         for c in NOW)]


def test_a_history_without_the_published_fingerprint_is_a_message() -> None:
    con = duckdb.connect()
    con.execute("create table history (release_name varchar, release_version bigint,"
                " published_relation varchar, status varchar, recorded_at varchar)")
    read = _columns(con)
    assert isinstance(read, str)
    assert read == ("the release history history was written by an older package version"
                    " (no column(s) settings_json, published_hash): the line's published"
                    " versions cannot be told from it")


class _Rel:
    """A relation in the main schema, as the line gate reads it."""

    def __init__(self, identifier: str) -> None:
        self.database, self.schema, self.identifier = "db", "main", identifier

    def include(self, database: bool = True) -> _Rel:
        return self

    def __str__(self) -> str:
        return f"main.{self.identifier}"


def _gate(con: duckdb.DuckDBPyConnection, release: dict, missing: tuple[str, ...] = ()):
    """default__kind_line_gate_result of the text release on DuckDB tables in memory."""
    import hashlib
    import json

    def names(rel: object) -> list[SimpleNamespace]:
        return [SimpleNamespace(name=r[0]) for r in con.execute(f"describe {rel}").fetchall()]

    def context(call):
        return {
            "var": lambda name, default=None: release if name == "deid_text_release" else default,
            "local_md5": lambda s: hashlib.md5(s.encode()).hexdigest(),
            "fromjson": json.loads,
            "run_query": lambda sql: SimpleNamespace(rows=con.execute(sql).fetchall()),
            "api": SimpleNamespace(Relation=SimpleNamespace(
                create=lambda **kw: _Rel(kw["identifier"]))),
            "adapter": SimpleNamespace(
                get_relation=lambda db, schema, name: None if name in missing else _Rel(name),
                get_columns_in_relation=names),
            "dbt": SimpleNamespace(type_string=lambda: "varchar"),
            "graph": SimpleNamespace(nodes={}),  # no line record, no other publish schema
            "dbt_deid": SimpleNamespace(**{m: call(m) for m in [
                "kind_line_relation_key", "kind_line_epoch", "kind_line_history_columns",
                "kind_line_row_table", "kind_line_versions", "kind_line_histories",
                "kind_line_record_relation"]},
                literal=lambda v: "'" + str(v) + "'", _graph_relation=lambda name: None,
                is_publish_node=lambda node: False),
        }
    call = macro_caller([FILE], context)
    return call("default__kind_line_gate_result")(
        "text", "documents", _Rel("candidate"), _Rel("deid_text_published"),
        "main.text_documents")


def test_a_restart_does_not_excuse_a_published_table_the_history_lost() -> None:
    """The final review of session 7: a `restart` kept in the vars (removing it is refused)
    excused a published table the history no longer records, so a deleted history published a
    fresh version over what recipients hold (on 5dda012: passed, "started over"). Refused
    whatever the epoch; archived or dropped first, a restart publishes."""
    con = duckdb.connect()
    con.execute("create table deid_text_published as select 'note0001' as doc_id")
    con.execute("create table deid_release_history (" + ", ".join(
        f"{c} {'bigint' if c == 'release_version' else 'varchar'}" for c in NOW) + ")")
    restart = {"name": "t", "restart": {"reason": "note0001 corrected"}}
    for release in [restart, {"name": "t"}]:
        out = _gate(con, release)
        assert not out["passed"], out["message"]
        assert "records no published version of it" in out["message"]
        assert "archive or drop the published table" in out["message"]
        assert "a `restart` alone does not excuse it" in out["message"]
    out = _gate(con, restart, missing=("deid_text_published",))
    assert out["passed"] and "started over" in out["message"]
