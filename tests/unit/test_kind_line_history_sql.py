"""The claims and text line gate on a release history of an older package version
(macros/gates/kind_line.sql, kind_line_history_columns; issue 32): the publish model run alone
reads the history before deid_release_history_init adds this version's columns. The columns
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
