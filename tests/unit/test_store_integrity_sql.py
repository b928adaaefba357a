"""The per-record store checked whole against the history and its key, project-wide
(macros/gates/store_integrity.sql; holes 2, 3 and 4 of the review of lines found by records):
a replaced key, rows deleted, the store dropped. Rendered with Jinja outside dbt and run on
DuckDB in memory."""

from __future__ import annotations

import json
import re
from types import SimpleNamespace
from typing import Any

import duckdb
import pytest

from tests.macro_render import macro_caller
from tests.unit.test_line_lock_sql import ROOT

FILE = ROOT / "macros" / "gates" / "store_integrity.sql"
LINES = ROOT / "macros" / "releases" / "combined_lines.sql"
#: The key fingerprint of the project's key 'k3y' (key_check_sql), as SQL.
FINGERPRINT = "md5('dbt_deid-key-check|k3y')"


def _fingerprint(con: Any, rel: Any) -> dict[str, Any]:
    """A stand-in for table_fingerprint: the row count and a hash of the sorted rows."""
    rows, digest = con.execute(f"select count(*), md5(coalesce(string_agg(cast(t as varchar),"
                               f" '|' order by cast(t as varchar)), '')) from {rel} as t"
                               ).fetchone()
    return {"rows": rows, "hash": digest}


def run_query_on(con: Any):
    """dbt's run_query on a DuckDB connection (the rows only)."""
    return lambda sql: SimpleNamespace(rows=con.execute(sql).fetchall())


def columns_on(con: Any):
    """adapter.get_columns_in_relation on a DuckDB connection (the names only)."""
    return lambda rel: [SimpleNamespace(name=r[0])
                        for r in con.execute(f"describe {rel}").fetchall()]


def _caller(con: Any, epoch: str = "", missing: tuple[str, ...] = ()):
    run_query, columns = run_query_on(con), columns_on(con)

    def context(call):
        return {
            "dbt_deid": SimpleNamespace(
                line_epoch=lambda: epoch, key_check_sql=lambda k: call("key_check_sql")(k),
                orphaned_publication_problems=lambda *a: call("orphaned_publication_problems")(*a),
                dropped_line_problems=lambda *a: call("dropped_line_problems")(*a),
                _key_has_stored_epochs=lambda k: call("_key_has_stored_epochs")(k),
                line_source=lambda cfg: cfg["source"],
                line_own_rows_sql=lambda *a: call("line_own_rows_sql")(*a),
                own=lambda m: m, literal=lambda v: "'" + str(v).replace("'", "''") + "'",
                published_versions_of=lambda *a: call("published_versions_of")(*a),
                table_fingerprint=lambda rel: _fingerprint(con, rel),
                package_version=lambda: "0.3.0",
                kind_line_relation_key=lambda r: ".".join(
                    str(r).replace('"', "").lower().split(".")[-2:])),
            "dbt": SimpleNamespace(type_string=lambda: "varchar", hash=lambda x: f"md5({x})",
                                   concat=lambda xs: " || ".join(xs),
                                   position=lambda sub, text: f"position({sub} in {text})"),
            "adapter": SimpleNamespace(get_relation=lambda *a: None if a and a[-1] in missing
                                       else True,
                                       get_columns_in_relation=columns,
                                       dispatch=lambda name, package: call("default__" + name)),
            "run_query": run_query,
            "statement": lambda name, caller=None: con.execute(caller()) and "",
            "fromjson": json.loads,
        }
    return macro_caller([FILE, LINES], context)


def _project(con: Any) -> None:
    con.execute("create table hkey as select 'k3y' as key_value")
    con.execute("create table store (release_id varchar, record_key varchar, key_check varchar)")
    con.execute("create table hist (release_id varchar, release_name varchar,"
                " release_version int, line_json varchar, published_rows bigint,"
                " status varchar, release_kind varchar, recorded_at varchar)")
    for rid, name, n, epoch in [("r1", "x", 10, ""), ("r2", "y", 5, ""), ("r3", "z", 4, "old")]:
        con.execute("insert into hist values (?, ?, 1, ?, ?, 'published', 'discharge', ?)",
                    [rid, name, json.dumps({"epoch": epoch}), n, rid])
        con.execute(f"insert into store select '{rid}', md5('k3y|' || range),"
                    f" md5('dbt_deid-key-check|k3y') from range({n})")


def _problems(call, **kw) -> list[str]:
    args = {"cfg": {"name": "x", "source": "main.src", "record_id": "id"}, "store": "store",
            "key": "hkey", "history": "hist",
            "store_found": True, "known": []}
    args.update(kw)
    return call("store_integrity_problems")(**args)


def test_the_store_whole_passes_and_each_hole_is_refused() -> None:
    con = duckdb.connect()
    _project(con)
    call = _caller(con)
    assert _problems(call) == []
    # hole 3: the key replaced; and the rows' fingerprints emptied by hand to hide it (a
    # reviewer's bypass of the first fix, which skipped rows without one)
    con.execute("update hkey set key_value = 'S3CRET'")
    (msg,) = _problems(call)
    assert "not the key that keyed" in msg and "r1 (10 rows)" in msg and "S3CRET" not in msg
    con.execute("update store set key_check = null")
    (msg,) = _problems(call)
    assert "not the key that keyed" in msg and "r1 (10 rows)" in msg
    con.execute("update hkey set key_value = 'k3y'")
    (msg,) = _problems(call)
    assert "key_check emptied" in msg
    con.execute(f"update store set key_check = {FINGERPRINT}")
    assert _problems(call) == []
    # hole 4 bypassed: rows deleted, then the rows left copied up to the published count
    con.execute("create table kept as select * from store where release_id = 'r2' limit 1")
    con.execute("delete from store where release_id = 'r2'")
    con.execute("insert into store select kept.* from kept, range(5)")
    (msg,) = _problems(call)
    assert "fewer rows than published" in msg and "y version 1 (release r2): 1 of 5" in msg
    con.execute("delete from store where release_id = 'r2'")
    con.execute("insert into store select 'r2', md5('k3y|' || range), NULL from range(5)")
    con.execute(f"update store set key_check = {FINGERPRINT} where release_id = 'r2'")
    # hole 4: rows of a published release deleted, its history kept
    con.execute("delete from store where release_id = 'r2' and record_key in"
                " (select md5('k3y|' || range) from range(2))")
    (msg,) = _problems(call)
    assert "fewer rows than published" in msg and "y version 1 (release r2): 3 of 5" in msg
    # hole 2: a release's rows (or the whole store) gone: every release refuses; another
    # epoch's release (started over) is not asked for
    con.execute("delete from store where release_id = 'r1'")
    assert any("x version 1 (release r1)" in m and "no per-record rows" in m
               and "working schema is not the one" in m for m in _problems(call))
    assert not any("r1" in m for m in _problems(call, known=["r1"]))  # named by the caller
    con.execute("delete from store")
    # another name's versions of an earlier epoch are asked for (its restart does not excuse
    # this line); only this name's own earlier epoch (its restart) is not
    (msg,) = _problems(call, store_found=False, key=None)
    assert "r1" in msg and "r2" in msg and "r3" in msg
    (msg,) = _problems(call, cfg={"name": "z"}, store_found=False, key=None)
    assert "r1" in msg and "r2" in msg and "r3" not in msg


def test_a_store_holding_rows_twice_is_refused() -> None:
    """Review 15, M1: a store appended to itself (a backup restored with `insert` instead of
    replacing the rows) holds each (record, release) row twice; the count of distinct records
    still matched the history, so nothing refused it, and the gate's linked check in long form
    counted a record's duplicate rows as releases holding it (fail open: a target consistent
    with one record passed). Refused, naming the store, the releases and the way out; a
    release with fewer records than published keeps its own refusal (one message)."""
    con = duckdb.connect()
    _project(con)
    call = _caller(con)
    assert _problems(call) == []
    con.execute("insert into store select * from store")
    (msg,) = _problems(call)
    assert "the per-record store store holds more rows than records" in msg
    assert ("x version 1 (release r1): 20 rows of 10 records" in msg
            and "y version 1 (release r2): 10 rows of 5 records" in msg
            and "z version 1 (release r3): 8 rows of 4 records" in msg)
    assert "restore the store from a backup" in msg
    # one row of one release twice is enough
    con.execute("delete from store")
    for rid, n in [("r1", 10), ("r2", 5), ("r3", 4)]:
        con.execute(f"insert into store select '{rid}', md5('k3y|' || range), {FINGERPRINT}"
                    f" from range({n})")
    con.execute("insert into store select * from store where release_id = 'r2' limit 1")
    (msg,) = _problems(call)
    assert "y version 1 (release r2): 6 rows of 5 records" in msg and "r1" not in msg
    # rows deleted and the rows left copied up to the published count: refused as rows
    # deleted (the test above), not twice
    con.execute("delete from store where release_id = 'r2' and record_key in"
                " (select md5('k3y|' || range) from range(3))")
    (msg,) = _problems(call)
    assert "fewer rows than published" in msg and "y version 1 (release r2): 2 of 5" in msg


class _Rel:
    """A relation in the main schema, as the macros read it."""

    def __init__(self, identifier: str) -> None:
        self.database, self.schema, self.identifier = "db", "main", identifier

    def __str__(self) -> str:
        return f"main.{self.identifier}"


def test_the_history_and_the_store_both_dropped_are_refused() -> None:
    """Review 7, finding 4: the history and the store both dropped, the published table kept:
    a fresh "version 1" over it is refused (on a5cf6b0 nothing noticed); the first build of a
    project (no published table, or an empty one) and a `restart` publish."""
    con = duckdb.connect()
    _project(con)
    con.execute("create table pub as select range as x from range(4)")  # r3's rows
    con.execute("alter table hist add column published_relation varchar")
    con.execute("""update hist set published_relation = '"db"."main"."pub"'""")
    call = _caller(con)
    pub, hist = _Rel("pub"), _Rel("hist")
    assert _problems(call, published=pub, history=hist) == []
    # the history and the store dropped: only the published table is left
    con.execute("drop table hist")
    con.execute("delete from store")
    gone = _caller(con, missing=("hist",))
    (msg,) = _problems(gone, published=pub, history=hist, store_found=False, key=None)
    assert "the published table main.pub holds rows" in msg and "(missing: dropped?)" in msg
    # the history emptied (or holding only another table's versions) and the store dropped
    con.execute("create table hist (release_id varchar, release_name varchar,"
                " release_version int, line_json varchar, published_rows bigint,"
                " status varchar, release_kind varchar, recorded_at varchar,"
                " published_relation varchar)")
    (msg,) = _problems(call, published=pub, history=hist, store_found=False, key=None)
    assert "records no published version of it" in msg
    con.execute("insert into hist values ('o1', 'other', 1, null, 0, 'published', 'discharge',"
                " 'o1', 'main.other_published')")
    gone_store = {"published": pub, "history": hist, "store_found": False, "key": None}
    assert len(_problems(call, **gone_store)) == 1
    # a first build (no table, or an empty one) publishes
    assert _problems(_caller(con, missing=("pub",)), **gone_store) == []
    con.execute("delete from pub")
    assert _problems(call, **gone_store) == []


def test_a_restart_does_not_excuse_an_orphaned_publication() -> None:
    """The final review of session 7: a `restart` kept in the vars (removing it is refused, so
    every later build of a restarted line has it) excused the published table the history no
    longer records, so the history and the store dropped published a fresh "version 1" over
    what recipients hold (on 5dda012: []). A new restart cannot be told from a kept one once
    the history is gone, so any orphaned publication is refused, naming the way out: restore
    the history, or archive/drop the published table, then restart."""
    con = duckdb.connect()
    _project(con)
    con.execute("create table pub as select range as x from range(3)")
    con.execute("drop table hist")
    con.execute("delete from store")
    pub, hist = _Rel("pub"), _Rel("hist")
    gone = {"published": pub, "history": hist, "store_found": False, "key": None}
    for epoch in ["e1", "a-new-reason"]:
        (msg,) = _problems(_caller(con, epoch=epoch, missing=("hist",)), **gone)
        assert "the published table main.pub holds rows" in msg
        assert "restore the release history" in msg and "archive or drop" in msg
        assert "a `restart` alone does not excuse it" in msg
    # the history emptied (not dropped), under a restart: refused too
    con.execute("create table hist (release_id varchar, release_name varchar,"
                " release_version int, line_json varchar, published_rows bigint,"
                " status varchar, release_kind varchar, recorded_at varchar,"
                " published_relation varchar)")
    (msg,) = _problems(_caller(con, epoch="e1"), **gone)
    assert "records no published version of it" in msg
    # the way out: the published table archived (or dropped), then a restart publishes
    con.execute("alter table pub rename to pub_archived")
    assert _problems(_caller(con, epoch="e1", missing=("pub",)), **gone) == []


def test_a_key_replaced_with_its_fingerprints_is_refused() -> None:
    """Review 7, finding 5: the key replaced and every stored `key_check` recomputed for it
    (on a5cf6b0 nothing noticed: every record looked new, `records_shared 0`); the history row
    of each published version records the key's fingerprint (line_json's key_check), which
    the attacker would have to rewrite too. Rows written before it was recorded are not
    compared."""
    con = duckdb.connect()
    _project(con)
    call = _caller(con)
    con.execute("update hist set line_json = json_object('epoch', json_extract_string("
                f"line_json, '$.epoch'), 'key_check', {FINGERPRINT}) where release_id <> 'r2'")
    assert _problems(call) == []
    con.execute("update hkey set key_value = 'attacker-chosen-key'")
    con.execute("update store set key_check = (select md5('dbt_deid-key-check|' || key_value)"
                " from hkey)")
    (msg,) = _problems(call)
    assert "not the key the release history recorded" in msg
    assert "x version 1 (release r1)" in msg and "r2" not in msg
    # review 18, S4a: the same refusal when the working schema moved (a new key and store
    # there); the message says so instead of blaming a replaced key only
    assert "working schema is not the one these versions were published from" in msg


def test_a_name_deleted_from_the_history_and_the_store_is_refused() -> None:
    """Left open by review 7 (finding 4): one name's history rows deleted together with its
    store rows, while another name's history rows for the same published table remain, passed
    the orphan check (the other name's rows satisfied it), so the deleted name's versions
    dropped out of the combined view (on 5dda012: []). The published table must be a version
    the history records for it (its fingerprint, else its row count for rows recorded without
    one), and every published row records how many published rows the history held for the
    table before it (line_json's relation_versions_before): fewer now is rows deleted."""
    con = duckdb.connect()
    con.execute("create table pub as select range as x from range(3)")
    hist = _Rel("hist")
    con.execute("create table hist (release_id varchar, release_name varchar,"
                " release_version int, line_json varchar, published_rows bigint,"
                " status varchar, release_kind varchar, recorded_at varchar,"
                " published_relation varchar, published_hash varchar,"
                " package_version varchar default '0.3.0')")
    now = _fingerprint(con, "pub")["hash"]
    for rid, name, version, before, digest in [("r1", "a", 1, None, "h1"), ("r2", "b", 1, 1, "h2"),
                                               ("r3", "a", 2, 2, now)]:
        line = json.dumps({} if before is None else {"relation_versions_before": before})
        con.execute("insert into hist values (?, ?, ?, ?, 3, 'published', 'discharge', ?,"
                    " 'db.main.pub', ?, '0.3.0')", [rid, name, version, line, rid, digest])
    # another table's versions are not counted
    con.execute("insert into hist values ('o1', 'o', 1, '{\"relation_versions_before\": 7}',"
                " 3, 'published', 'discharge', 'o1', 'db.main.other', 'h9', '0.3.0')")
    call = _caller(con)
    pub = _Rel("pub")
    args = {"published": pub, "history": hist, "store_found": False, "key": None}
    assert call("orphaned_publication_problems")(pub, hist, True) == []
    # the other name's rows deleted (with its store rows), the table still the latest version
    con.execute("create table saved as select * from hist")
    con.execute("delete from hist where release_name = 'b'")
    (msg,) = call("orphaned_publication_problems")(pub, hist, True)
    assert "records 2 published version(s) of the published table main.pub" in msg
    assert "at least 3 expected" in msg and "restore the release history" in msg
    assert any("2 published version(s)" in m for m in _problems(call, **args))
    # the latest version's rows deleted: the published table is no version the history records
    con.execute("create or replace table hist as select * from saved")
    con.execute("delete from hist where release_id = 'r3'")
    (msg,) = call("orphaned_publication_problems")(pub, hist, True)
    assert "is not a version the release history" in msg and "3 row(s)" in msg
    # a version recorded without a fingerprint, or by another package version (whose
    # fingerprint SQL may differ): its row count
    con.execute("update hist set package_version = '0.2.0' where release_id = 'r2'")
    assert call("orphaned_publication_problems")(pub, hist, True) == []
    con.execute("update hist set published_hash = null, package_version = '0.3.0'"
                " where release_id = 'r2'")
    assert call("orphaned_publication_problems")(pub, hist, True) == []
    con.execute("update hist set published_rows = 4 where release_id = 'r2'")
    (msg,) = call("orphaned_publication_problems")(pub, hist, True)
    assert "is not a version the release history" in msg


def _line_tables(con: Any, stored: str) -> None:
    """A key recording `stored`, an empty store with the line columns, an empty history."""
    con.execute(f"create table hkey as select 'k3y' as key_value, '{stored}' as stored_epochs")
    con.execute("create table store (release_name varchar, release_id varchar,"
                " record_key varchar, key_check varchar, source_relation varchar,"
                " record_id_column varchar, line_epoch varchar)")
    con.execute("create table hist (release_id varchar, release_name varchar,"
                " release_version int, line_json varchar, published_rows bigint,"
                " status varchar, release_kind varchar, recorded_at varchar,"
                " published_relation varchar)")


def _stored_row(con: Any, name: str, source: str) -> None:
    """One store row of release `name` over `source` (keyed by the project's key)."""
    con.execute("insert into store values (?, 'r9', md5('k3y|1'), md5('dbt_deid-key-check|k3y'),"
                " ?, 'id', '')", [name, source])


#: The store-integrity arguments of release "x" over main.src (published as main.x_pub).
LINE_X = {"cfg": {"name": "x", "source": "main.src", "record_id": "id"}, "store": "store",
          "key": "hkey", "history": "hist", "store_found": True, "known": []}


def test_the_history_store_and_published_table_dropped_with_the_key_kept_are_refused() -> None:
    """Review 8, F7: the history, the store and the published table all dropped while the key
    table (which records, since session 8, the lines and epochs that stored published rows) is
    kept: a fresh "version 1" over what recipients hold is refused (on 1d6b1ff nothing noticed:
    the published table was the only witness). A restart whose epoch already stored rows (kept
    in the vars) does not excuse it; a new restart does (explicit, audited). A key without the
    column (written before session 8) or that stored nothing is no evidence. A token without a
    line (a development build of session 8) is read project-wide, as it was."""
    con = duckdb.connect()
    _line_tables(con, "|x@-@main.src|x@0123456789abcdef@main.src|")
    args = LINE_X
    for epoch, found in [("", True), ("", False), ("0123456789abcdef", True)]:
        call = _caller(con, epoch=epoch, missing=() if found else ("hist",))
        msgs = call("store_integrity_problems")(**args)
        assert any("records that published versions of this line were stored" in m
                   and "restart" in m for m in msgs), (epoch, found, msgs)
    # a new restart (another reason, another epoch) starts over on purpose
    assert _caller(con, epoch="fedcba9876543210")("store_integrity_problems")(**args) == []
    def dropped() -> bool:
        return any("records that published" in m
                   for m in _caller(con)("store_integrity_problems")(**args))

    # the store or the history still holding the line's rows: the other checks judge it;
    # a development build's token (no line) is read project-wide: any row excuses it
    for stored, row in [(None, ("x", "main.src")), ("|-|", None), ("|-|", ("y", "main.other"))]:
        if stored:
            con.execute("update hkey set stored_epochs = ?", [stored])
        if row:
            _stored_row(con, *row)
        assert dropped() is (row is None), (stored, row)
        con.execute("delete from store")
    # a key that stored nothing (a first build refused), or written before the column
    con.execute("update hkey set stored_epochs = null")
    assert _caller(con)("store_integrity_problems")(**args) == []
    con.execute("alter table hkey drop column stored_epochs")
    assert _caller(con)("store_integrity_problems")(**args) == []


def test_another_release_does_not_witness_a_dropped_line() -> None:
    """Review 8 final, R2: the store, key and history are shared by the project's releases. With
    release y's store rows and published history row kept, release x's history rows, store rows
    and published table dropped are still refused (on 45d0c4e any row of y excused x: the F7
    attack worked on a project with two releases). x's line is found by its name, its
    published table or its source: y's rows over x's source, or y's history naming x's
    table, are x's line; a restart of x never excuses another name's tokens over its source."""
    con = duckdb.connect()

    def problems(con: Any, epoch: str = "") -> Any:
        return _caller(con, epoch=epoch, missing=("x_pub",))("store_integrity_problems")
    _line_tables(con, "|y@-@main.other|x@-@main.src|")
    _stored_row(con, "y", "main.other")
    con.execute("insert into hist values ('r9', 'y', 1, ?, 1, 'published', 'discharge', 'r9',"
                " 'db.main.y_pub')", [json.dumps({"source": "main.other", "epoch": ""})])
    args = {**LINE_X, "published": _Rel("x_pub")}  # dropped (missing)
    msgs = problems(con)(**args)
    assert any("records that published versions of this line were stored" in m
               and "x -" in m for m in msgs), msgs
    # y's own build is judged by y's rows: passes
    assert problems(con)(
        **{**args, "cfg": {"name": "y", "source": "main.other", "record_id": "id"}}) == []
    # a history row of another name over x's source, or naming x's published table, is x's
    for line, rel in [({"source": "main.src"}, "db.main.y_pub"), ({}, "db.main.x_pub")]:
        con.execute("update hist set line_json = ?, published_relation = ?",
                    [json.dumps(line), rel])
        assert not any("records that published" in m
                       for m in problems(con)(**args))
    con.execute("delete from hist")
    # another name's token over x's source: a restart of x does not excuse it
    con.execute("update hkey set stored_epochs = '|y@-@main.src|'")
    con.execute("delete from store")
    for epoch in ["", "fedcba9876543210"]:
        msgs = problems(con, epoch)(**args)
        assert any("records that published" in m and "y -" in m for m in msgs), (epoch, msgs)
    # its store rows kept: x's line (same source) is witnessed
    _stored_row(con, "y", "main.src")
    assert not any("records that published" in m
                   for m in problems(con)(**args))


def test_the_key_records_the_epochs_that_stored_rows() -> None:
    """record_stored_epoch: the column added to a key written before it, each epoch once."""
    con = duckdb.connect()
    con.execute("create table hkey as select 'k3y' as key_value, '' as created_at")
    for epoch, name in [("", "x"), ("", "x"), ("abc", "x"), ("", "y")]:
        call = _caller(con, epoch=epoch)
        call("record_stored_epoch")("hkey", {"name": name, "source": "main.src"})
    assert (con.execute("select stored_epochs from hkey").fetchone()[0]
            == "|x@-@main.src|x@abc@main.src|y@-@main.src|")


# Review 19, F2: the stored rows bound to the fingerprint their history row recorded
# (macros/gates/stored_rows_check.sql), with the engine's own fingerprint SQL (DuckDB's forms
# of macros/publish/table_fingerprint.sql).
CHECK_FILES = [ROOT / "macros" / "gates" / "stored_rows_check.sql",
               ROOT / "macros" / "publish" / "table_fingerprint.sql"]
#: The store's columns a release writes (release_records_columns: the line columns, one value
#: per release, grouped; the record key, then per released QI its cell and its true value
#: where it differs from the cell, fingerprinted).
CONSTANTS = ["release_name", "release_id", "release_version", "key_check"]
STORE_COLUMNS = ["record_key", "age", "age__generalized", "zip", "zip__generalized"]


def _check_caller(con: Any, engine: str = "duckdb", grouped: bool | None = None):
    """The macros of CHECK_FILES on ``con``; ``grouped`` forces stored_constants_grouped (True:
    the constant columns grouped by, as on PostgreSQL and Spark; None: DuckDB's form, which
    hashes them with the row)."""
    run_query, columns = run_query_on(con), columns_on(con)
    names = {m for f in CHECK_FILES for m in re.findall(r"{%-?\s*macro\s+(\w+)\s*\(",
                                                        f.read_text())}

    def context(call):
        def dispatch(name: str, package: str):
            return call(f"{engine}__{name}" if f"{engine}__{name}" in names
                        else f"default__{name}")

        class Namespace:
            def __getattr__(self, name: str):
                stubs = {"own": lambda m: m, **({} if grouped is None else {
                             "stored_constants_grouped": lambda: grouped}),
                         "literal": lambda v: "'" + str(v).replace("'", "''") + "'",
                         "ident": lambda n: '"' + n + '"'}
                return stubs[name] if name in stubs else call(name)

        return {"dbt_deid": Namespace(), "target": SimpleNamespace(type=engine),
                "adapter": SimpleNamespace(get_relation=lambda *a: True,
                                           get_columns_in_relation=columns, dispatch=dispatch),
                "run_query": run_query, "fromjson": json.loads,
                "tojson": lambda v, sort_keys=False: json.dumps(v, sort_keys=sort_keys),
                "dbt": SimpleNamespace(type_string=lambda: "varchar",
                                       hash=lambda x: f"md5({x})",
                                       concat=lambda xs: " || ".join(xs),
                                       length=lambda x: f"length({x})",
                                       listagg=lambda measure, delimiter, order_by:
                                       f"string_agg({measure}, {delimiter} {order_by})")}
    return macro_caller(CHECK_FILES, context)


def _stored_line(con: Any, call) -> None:
    """Two published versions of a line and another name's release: their rows, each recorded
    with the check the publish step records (record_release_records -> stored_rows_check)."""
    con.execute("create table store (release_name varchar, release_id varchar,"
                " release_version bigint, record_key varchar, key_check varchar, age varchar,"
                " age__generalized varchar, zip varchar, zip__generalized varchar)")
    con.execute("create table hist (release_id varchar, release_name varchar,"
                " release_version bigint, line_json varchar, status varchar,"
                " recorded_at varchar)")
    for rid, name, version in [("r1", "x", 1), ("r2", "x", 2), ("r3", "y", 1)]:
        # every third cell suppressed: the true value kept beside it
        con.execute(f"insert into store select '{name}', '{rid}', {version}, md5('k|' || range),"
                    " 'kc', case when range % 3 = 0 then null else '40-49' end,"
                    " case when range % 3 = 0 then '40-49' end,"
                    " case when range % 3 = 1 then null else 'K1' end,"
                    " case when range % 3 = 1 then 'K1' end from range(12)")
        check = call("stored_rows_check")("store", STORE_COLUMNS, rid, CONSTANTS)
        con.execute("insert into hist values (?, ?, ?, ?, 'published', ?)",
                    [rid, name, version, json.dumps({"epoch": "", "store_check": check}), rid])


@pytest.mark.parametrize("grouped", [None, True])
def test_stored_cells_edited_by_hand_are_refused(grouped: bool | None) -> None:
    """Review 19, F2: an UPDATE that blanked a version's stored cells (true values kept: row
    count, keys and key_check untouched) passed store_integrity_problems, and the gate read
    the blanked cells as what recipients hold: on 8b94a27 a refused level change published
    (by person 4 records below k = 5, smallest 3). The stored rows are now compared with the
    fingerprint their history row recorded at publish, naming the store, the release and its
    version and the way out (`restart`), never a value."""
    con = duckdb.connect()
    call = _check_caller(con, grouped=grouped)
    _stored_line(con, call)
    problems = call("stored_rows_edited_problems")
    assert problems("store", "hist", ["r1", "r2", "r3"]) == []
    # the rows in another order, and a copy of the table: the same multiset, nothing refused
    con.execute("create table shuffled as select * from store order by md5(record_key || 'x')")
    con.execute("drop table store")
    con.execute("alter table shuffled rename to store")
    assert problems("store", "hist", ["r1", "r2", "r3"]) == []
    con.execute("create table backup as select * from store")
    # the reviewer's edit, on version 1 only: cells blanked, true values kept
    con.execute("update store set age__generalized = coalesce(age__generalized, age), age = null,"
                " zip__generalized = coalesce(zip__generalized, zip), zip = null"
                " where release_id = 'r1'")
    (msg,) = problems("store", "hist", ["r1", "r2", "r3"])
    assert "the per-record store store does not hold the rows written when release(s) x" \
        " version 1 (release r1) were published" in msg
    assert "r2" not in msg and "r3" not in msg
    assert "`restart: {reason: '...'}`" in msg and "Restore the store from a backup" in msg
    assert "40-49" not in msg and "K1" not in msg
    # one cell of one row of another release, a true value, a key: each is seen
    for edit, rid in [("update store set age = '50-59' where release_id = 'r3'"
                       " and record_key = md5('k|1')", "r3"),
                      ("update store set zip__generalized = 'K2' where release_id = 'r2'"
                       " and zip__generalized is not null", "r2"),
                      ("update store set record_key = md5('k|99') where release_id = 'r2'"
                       " and record_key = md5('k|1')", "r2"),
                      # a column written with one value per release, on one row
                      ("update store set release_version = 1 where release_id = 'r2'"
                       " and record_key = md5('k|5')", "r2"),
                      ("update store set key_check = null where release_id = 'r3'"
                       " and record_key = md5('k|5')", "r3"),
                      # values swapped between two rows of a release (the counts unchanged)
                      ("update store set age = case when age is null then '40-49' end,"
                       " age__generalized = case when age is null then null else '40-49' end"
                       " where release_id = 'r2' and record_key in (md5('k|0'), md5('k|1'))",
                       "r2")]:
        con.execute("delete from store")
        con.execute("insert into store select * from backup")
        con.execute(edit)
        (msg,) = problems("store", "hist", ["r1", "r2", "r3"])
        assert f"(release {rid})" in msg and msg.count("(release ") == 1, (edit, msg)
    # a release's rows deleted or one added (store_integrity_problems counts them too)
    con.execute("delete from store")
    con.execute("insert into store select * from backup where release_id <> 'r3'")
    (msg,) = problems("store", "hist", ["r1", "r2", "r3"])
    assert "y version 1 (release r3)" in msg
    # only the releases asked for are read (the gate passes the releases it combines)
    assert problems("store", "hist", ["r1", "r2"]) == []
    # a column of the check dropped from the store
    con.execute("delete from store")
    con.execute("insert into store select * from backup")
    con.execute("alter table store drop column zip__generalized")
    (msg,) = problems("store", "hist", ["r1"])
    assert "x version 1 (release r1) (column(s) zip__generalized missing)" in msg
    con.execute("alter table store rename column key_check to kc")
    (msg,) = problems("store", "hist", ["r1"])
    assert "(column(s) key_check, zip__generalized missing)" in msg


def test_a_release_recorded_without_a_check_is_not_compared() -> None:
    """A version published before the history recorded its store's fingerprint (an older
    package version: no `store_check` in line_json), or recorded by another fingerprint form
    (another engine, a later change of the hash), is not compared: an upgrade must not refuse
    every line (docs/combined-lines.md, "Review 19 F2"). The releases published after the
    upgrade are checked."""
    con = duckdb.connect()
    call = _check_caller(con)
    _stored_line(con, call)
    con.execute("update hist set line_json = '{\"epoch\": \"\"}' where release_id = 'r1'")
    con.execute("update hist set line_json = replace(line_json, 'duckdb-1', 'postgres-1')"
                " where release_id = 'r3'")
    con.execute("update store set age = null")
    (msg,) = call("stored_rows_edited_problems")("store", "hist", ["r1", "r2", "r3"])
    assert "x version 2 (release r2)" in msg and "r1" not in msg and "r3" not in msg
