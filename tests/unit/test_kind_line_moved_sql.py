"""The claims and text line gate when the published table moved to another schema (review 9,
G2; macros/gates/kind_line.sql): the line was read only from deid_release_history next to the
published table, so a `+schema` on the publish models (or a generate_schema_name, a target
change) made the next build "version 1" of a new line, published unchecked. The line is now
read from every history the project writes: the one next to the published table, the kind's
line record in its working schema (deid_<kind>_line_history, a copy of every published row)
and the history in the schema of every publish model of the graph.

default__kind_line_gate_result rendered with Jinja outside dbt, the SQL run on DuckDB in memory
with three schemas: ``main`` (version 1 was published there), ``moved`` (the publish models'
schema now) and ``work`` (the working schema). The whole gate in dbt, for the claims release:
tests/integration/test_lola_dbt.py,
test_a_later_version_of_a_claims_line_is_not_published_unchecked.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import duckdb
import pytest

from tests.macro_render import macro_caller

ROOT = Path(__file__).resolve().parents[2]
FILES = [ROOT / "macros" / "gates" / "kind_line.sql",
         ROOT / "macros" / "gates" / "rows_not_in_sql.sql"]
COLUMNS = ["release_name", "release_version", "published_relation", "input_relation",
           "settings_json", "published_hash", "recorded_at", "line_json", "status", "release_kind"]
#: kind -> (table role, published model, gate model, input relation)
KINDS = {"text": ("documents", "deid_text_published", "deid_text_release_gate",
                  "main.text_documents"),
         "claims": ("claims", "deid_claims_published_claims", "deid_claims_release_gate",
                    "main.claims_claims")}


class _Rel:
    """A relation as dbt's api.Relation renders it here: `schema.identifier`."""

    def __init__(self, schema: str, identifier: str, database: str = "db") -> None:
        self.database, self.schema, self.identifier = database, schema, identifier

    def include(self, database: bool = True) -> _Rel:
        return self

    def __str__(self) -> str:
        return f"{self.schema}.{self.identifier}"


def _fingerprint(con: duckdb.DuckDBPyConnection, rel: object) -> dict[str, Any]:
    rows = sorted(map(repr, con.execute(f"select * from {rel}").fetchall()))
    return {"rows": len(rows), "hash": hashlib.md5("\n".join(rows).encode()).hexdigest()}


def _node(schema: str, name: str, materialized: str) -> SimpleNamespace:
    return SimpleNamespace(name=name, schema=schema, database="db", alias=None,
                           resource_type="model", package_name="dbt_deid",
                           config={"materialized": materialized})


def _gate(con: duckdb.DuckDBPyConnection, kind: str, candidate: str, publish_schema: str,
          work: bool = True, discharge_schema: str | None = None,
          restart: str | None = None) -> dict[str, Any]:
    """The line gate of `kind` for `candidate`, the publish models in `publish_schema` (the
    graph's; the discharge release's deid_published in `discharge_schema`, default the same),
    the kind's gate model in `work` (else no gate node, so no line record), `restart` the
    setting's reason."""
    table, model, gate, source = KINDS[kind]
    nodes = [_node(publish_schema, m, "deid_publish") for m in
             ["deid_claims_published_patients", "deid_claims_published_claims",
              "deid_text_published"]]
    nodes.append(_node(discharge_schema or publish_schema, "deid_published", "deid_publish"))
    if work:
        nodes.append(_node("work", gate, "view"))
    graph = SimpleNamespace(nodes={n.name: n for n in nodes})
    settings: dict[str, Any] = {"name": f"it_{kind}"}
    if restart:
        settings["restart"] = {"reason": restart}

    def exists(db: str, schema: str, name: str) -> _Rel | None:
        found = con.execute("select count(*) from information_schema.tables where table_schema = ?"
                            " and table_name = ?", [schema, name]).fetchone()
        return _Rel(schema, name) if found and found[0] else None

    def columns(rel: object) -> list[SimpleNamespace]:
        return [SimpleNamespace(name=r[0]) for r in con.execute(f"describe {rel}").fetchall()]

    def graph_relation(name: str) -> _Rel | None:
        node = graph.nodes.get(name)
        return _Rel(node.schema, node.name) if node is not None else None

    def context(call):
        return {
            "var": lambda name, default=None: (
                settings if name == f"deid_{kind}_release" else default),
            "local_md5": lambda s: hashlib.md5(s.encode()).hexdigest(),
            "fromjson": json.loads,
            "run_query": lambda sql: SimpleNamespace(rows=con.execute(sql).fetchall()),
            "api": SimpleNamespace(Relation=SimpleNamespace(
                create=lambda **kw: _Rel(kw["schema"], kw["identifier"], kw.get("database")))),
            "adapter": SimpleNamespace(get_relation=exists, get_columns_in_relation=columns),
            "graph": graph,
            "dbt": SimpleNamespace(type_string=lambda: "varchar"),
            "dbt_deid": SimpleNamespace(**{m: call(m) for m in [
                "kind_line_relation_key", "kind_line_epoch", "kind_line_history_columns",
                "kind_line_row_table", "kind_line_versions", "kind_line_histories",
                "kind_line_record_relation", "kind_line_rows_not_in"]},
                rows_not_in_sql=call("default__rows_not_in_sql"),
                ident=lambda c: c, literal=lambda v: "'" + str(v) + "'",
                _graph_relation=graph_relation,
                is_publish_node=lambda n: n.config.get("materialized") == "deid_publish",
                table_fingerprint=lambda rel, cols=None: SimpleNamespace(**_fingerprint(con, rel))),
        }
    call = macro_caller(FILES, context)
    return call("default__kind_line_gate_result")(
        kind, table, _Rel("main", candidate), _Rel(publish_schema, model), source)


def _version_1(kind: str) -> duckdb.DuckDBPyConnection:
    """Version 1 of the line published in main (3 rows), recorded in main's history and in the
    kind's line record in the working schema; candidates: identical, a subset, a changed one."""
    table, model, _, source = KINDS[kind]
    con = duckdb.connect()
    for schema in ["moved", "work"]:
        con.execute(f"create schema {schema}")
    con.execute(f"create table main.{model} as select * from (values ('a', 1), ('b', 2),"
                " ('c', 3)) as t(doc_id, n)")
    con.execute(f"create table main.same as select * from main.{model}")
    con.execute(f"create table main.fewer as select * from main.{model} where doc_id <> 'c'")
    con.execute(f"create table main.changed as select doc_id, n + (doc_id = 'c')::int as n"
                f" from main.{model}")
    line = {"epoch": "", "kind": kind, "table": table, "published_table": f"main.{model}",
            "release_name": f"it_{kind}", "source": source}
    row = [f"it_{kind}", 1, f'"db"."main"."{model}"', source, json.dumps({"name": f"it_{kind}"}),
           _fingerprint(con, f"main.{model}")["hash"], "2026-11-27T10:00:00Z",
           json.dumps(line), "published", kind]
    for history in ["main.deid_release_history", f"work.deid_{kind}_line_history"]:
        con.execute(f"create table {history} (" + ", ".join(
            f"{c} {'bigint' if c == 'release_version' else 'varchar'}" for c in COLUMNS) + ")")
        con.execute(f"insert into {history} values ({', '.join('?' for _ in COLUMNS)})", row)
    return con


@pytest.mark.parametrize("kind", ["text", "claims"])
def test_a_published_table_moved_to_another_schema_is_the_same_line(kind: str) -> None:
    """Every publish model moved to `moved` (the graph has no publish model in main): the line
    record in the working schema holds version 1, so a changed version is refused (on da67971:
    passed, "no earlier published version (version 1 of the line)"); an identical rebuild or
    one that only deletes rows from version 1 (compared where it was published) passes."""
    con = _version_1(kind)
    gate = "text_line" if kind == "text" else "claims_line"
    out = _gate(con, kind, "changed", "moved")
    print(kind, "changed, moved:", out["passed"], out["message"])
    assert out["gate"] == gate
    assert not out["passed"], out["message"]
    assert "differs from the last published version (1 of its rows are not rows of it)" in out[
        "message"]
    assert "version(s) 1 of release name" in out["message"]
    assert out["line"]["extends_version"] == 1
    same = _gate(con, kind, "same", "moved")
    assert same["passed"] and "identical to the published version 1" in same["message"]
    fewer = _gate(con, kind, "fewer", "moved")
    assert fewer["passed"], fewer["message"]
    assert "every one of its 2 rows is a row of the published version 1" in fewer["message"]
    # main's history read too (the discharge release still publishes there), its copy
    # differing from the line record's (edited, or of an older package version): still one
    # version 1
    con.execute("update main.deid_release_history set line_json = null,"
                " recorded_at = '2000-01-01T00:00:00Z'")
    again = _gate(con, kind, "changed", "moved", discharge_schema="main")
    assert not again["passed"] and "has published version(s) 1 of release name" in again[
        "message"], again["message"]
    # the table where version 1 was published changed since (not that version any more): the
    # subset cannot be decided, refused
    con.execute(f"update main.{KINDS[kind][1]} set n = n + 10")
    assert not _gate(con, kind, "fewer", "moved")["passed"]


@pytest.mark.parametrize("kind", ["text", "claims"])
def test_the_line_is_read_from_every_history_of_the_graph(kind: str) -> None:
    """No line record (written from this package version on, or its gate model not in the
    graph): the history in the schema of a publish model of the graph (main: the discharge
    release's still publishes there) holds version 1, so a changed version is refused."""
    con = _version_1(kind)
    con.execute(f"drop table work.deid_{kind}_line_history")
    nodes_in_main = _gate(con, kind, "changed", "main", work=False)
    assert not nodes_in_main["passed"]
    # the published tables in `moved`, but the discharge release's publish model in main
    con2 = _version_1(kind)
    con2.execute(f"drop table work.deid_{kind}_line_history")
    out = _gate(con2, kind, "changed", "moved", work=False, discharge_schema="main")
    print(kind, "changed, moved, no record:", out["passed"], out["message"])
    assert not out["passed"] and "1 of its rows are not rows of it" in out["message"]


def test_version_1_of_a_new_line_still_publishes() -> None:
    """A first build (no history anywhere, no published table) is version 1 of the line."""
    con = duckdb.connect()
    con.execute("create schema moved")
    con.execute("create schema work")
    con.execute("create table main.changed as select 'a' as doc_id, 1 as n")
    out = _gate(con, "text", "changed", "moved")
    assert out["passed"] and "version 1 of the line" in out["message"]


def _old_history(con: duckdb.DuckDBPyConnection, schema: str) -> None:
    """A deid_release_history in `schema` written by a package version before the release
    manifest (no published_hash, settings_json nor release_kind): a discharge release published
    there long ago."""
    con.execute(f"create schema if not exists {schema}")
    con.execute(f"create table {schema}.deid_release_history (release_name varchar,"
                " release_version bigint, published_relation varchar, status varchar,"
                " recorded_at varchar)")
    con.execute(f"insert into {schema}.deid_release_history values ('old', 1,"
                f" '{schema}.deid_published', 'published', '2020-01-01T00:00:00Z')")


@pytest.mark.parametrize("kind", ["text", "claims"])
@pytest.mark.parametrize("restart", [None, "a note corrected"])
def test_an_old_history_in_another_schema_does_not_end_the_line(kind: str,
                                                                 restart: str | None) -> None:
    """Review 9 final, F2: an old-format history of another release (the discharge release's,
    in `legacy`, no release_kind: it holds no claims or text version) among the histories the
    line is read from. Under a `restart` (sticky: every later build of a restarted line keeps
    it) the gate returned at that history, before reading the line's own rows: a changed
    version passed "started over" while recipients hold version 1 (on c058d1b); without it,
    every build was refused, pointing to `restart`. The history is skipped: the changed version
    is refused as differing from version 1, an identical rebuild passes."""
    con = _version_1(kind)
    if restart:  # version 1 was published under the same reason
        reason = json.dumps({"name": f"it_{kind}", "restart": {"reason": restart}})
        for history in ["main.deid_release_history", f"work.deid_{kind}_line_history"]:
            con.execute(f"update {history} set settings_json = ?", [reason])
    _old_history(con, "legacy")
    out = _gate(con, kind, "changed", "moved", discharge_schema="legacy", restart=restart)
    print(kind, restart, "changed, old history elsewhere:", out["passed"], out["message"])
    assert not out["passed"], out["message"]
    assert "differs from the last published version (1 of its rows are not rows of it)" in out[
        "message"]
    same = _gate(con, kind, "same", "moved", discharge_schema="legacy", restart=restart)
    assert same["passed"] and "identical to the published version 1" in same["message"], same[
        "message"]


@pytest.mark.parametrize("restart", [None, "upgraded"])
def test_an_old_history_next_to_the_published_table_keeps_its_rule(restart: str | None) -> None:
    """The history next to the published table written by an older package version: refused
    without `restart` (the line cannot be told), started over with it, as before review 9's G2
    (the upgrade path) -- when no other history records a version of the line."""
    con = duckdb.connect()
    con.execute("create schema work")
    con.execute("create table main.changed as select 'a' as doc_id, 1 as n")
    _old_history(con, "moved")
    con.execute("create table moved.deid_text_published as select 'b' as doc_id, 2 as n")
    out = _gate(con, "text", "changed", "moved", restart=restart)
    assert out["passed"] == bool(restart), out["message"]
    assert "written by an older package version" in out["message"]
    # but a version of the line recorded elsewhere (the line record) is still checked
    con.execute("create table work.deid_text_line_history as select * from (select"
                " 'it_text' as release_name, 1::bigint as release_version,"
                " 'main.changed' as published_relation, 'main.text_documents' as input_relation,"
                " ? as settings_json, 'x' as published_hash, '2026-11-27T10:00:00Z' as"
                " recorded_at, null::varchar as line_json, 'published' as status,"
                " 'text' as release_kind)",
                [json.dumps({"name": "it_text", "restart": {"reason": restart}} if restart
                            else {"name": "it_text"})])
    again = _gate(con, "text", "changed", "moved", restart=restart)
    print(restart, "old history next to the table, a version in the line record:",
          again["passed"], again["message"])
    assert not again["passed"], again["message"]


def test_a_line_record_without_its_columns_is_refused() -> None:
    """The line record is written whole by this package version: one without the fingerprint
    columns and release_kind (edited by hand) is refused, even under a `restart`, not skipped
    as an old history of another schema is."""
    con = _version_1("text")
    con.execute("alter table work.deid_text_line_history drop column published_hash")
    con.execute("alter table work.deid_text_line_history drop column release_kind")
    for restart in [None, "a note corrected"]:
        out = _gate(con, "text", "same", "moved", restart=restart)
        assert not out["passed"], out["message"]
        assert "work.deid_text_line_history was written by an older package version" in out[
            "message"]
