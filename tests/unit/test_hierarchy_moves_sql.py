"""An edited hierarchy between versions of a line (review 8, finding 2): the mapping each
published version released is kept (macros/publish/released_hierarchies.sql) and a released
value in another group now is refused (macros/gates/hierarchy_moves.sql). Rendered with Jinja
outside dbt and run on DuckDB in memory: the store written at publish, a grown and a
regenerated hierarchy (nothing moved), a moved value at the released level, a moved value at
another level of the line (mixed levels, read from deid_hierarchy), a store that lost rows, and
a version published before the mapping was kept. The end-to-end refusal of a nightly refresh:
tests/integration/test_living_release_dbt.py::test_a_moved_code_another_level_and_a_restart."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import duckdb
import pytest

from tests.macro_render import macro_caller

ROOT = Path(__file__).resolve().parents[2]
FILES = [ROOT / "macros/gates/hierarchy_moves.sql",
         ROOT / "macros/publish/released_hierarchies.sql",
         ROOT / "macros/gates/stored_rows_check.sql",
         ROOT / "macros/publish/table_fingerprint.sql"]
#: The macros of FILES: a dispatch takes DuckDB's form where there is one (the fingerprint).
NAMES = {m for f in FILES for m in re.findall(r"{%-?\s*macro\s+(\w+)\s*\(", f.read_text())}


class _Rel(SimpleNamespace):
    def __str__(self) -> str:
        return self.identifier


class _Refused(Exception):
    pass


def _raise(message: str):
    raise _Refused(message)


def _cfg(level: int = 3) -> dict:
    """mrdx (hierarchy, at ``level``), province (hierarchy, level 1), age (a rule)."""
    qis = [{"name": "mrdx", "column": "mrdx", "hierarchy": "diagnosis_hierarchy", "level": level},
           {"name": "province", "column": "province", "hierarchy": "province_hierarchy",
            "level": 1},
           {"name": "age", "column": "age", "hierarchy": None, "level": 1}]
    return {"name": "living", "qis": [SimpleNamespace(**q) for q in qis],
            "released_qis": ["mrdx", "province", "age"], "source": "main.discharge"}


def _caller(con: Any, sources: dict[str, str] | None = None):
    def execute(sql: str) -> list[tuple]:
        cur = con.execute(sql)
        return cur.fetchall() if cur.description else []

    def run_query(sql: str) -> SimpleNamespace:
        rows = execute(sql)
        return SimpleNamespace(rows=rows, columns=[SimpleNamespace(
            values=lambda: [r[0] for r in rows])])

    def tables() -> set[str]:
        return {r[0] for r in execute("select table_name from information_schema.tables")}

    def context(call):
        stubs = {
            "own": lambda m: m, "literal": lambda v: "'" + str(v).replace("'", "''") + "'",
            "ident": lambda n: '"' + n + '"', "create_schema_if_missing": lambda r: None,
            "released_level_specs": lambda cfg: {q.name: {"level": q.level} for q in cfg["qis"]},
            "original_value_sources": lambda cfg: sources or {q.name: q.name for q in cfg["qis"]},
            "release_node_name": lambda n: n,
            "_graph_relation": lambda n: _Rel(database="d", schema="s", identifier=n),
            "line_rows_condition": lambda cfg: "1 = 1",
            "line_release_ids": lambda cfg, store: [r[0] for r in execute(
                f"select distinct release_id from {store}")],
            "line_history_relation": lambda: _Rel(database="d", schema="s",
                                                  identifier="deid_release_history"),
        }

        class Namespace:
            def __getattr__(self, name: str):
                return stubs[name] if name in stubs else call(name)

        return {
            "execute": True, "dbt_deid": Namespace(), "target": SimpleNamespace(type="duckdb"),
            "fromjson": json.loads,
            "tojson": lambda v, sort_keys=False: json.dumps(v, sort_keys=sort_keys),
            "dbt": SimpleNamespace(type_string=lambda: "varchar", type_bigint=lambda: "bigint",
                                   type_int=lambda: "integer"),
            "api": SimpleNamespace(Relation=SimpleNamespace(create=lambda **kw: _Rel(**kw))),
            "adapter": SimpleNamespace(
                dispatch=lambda name, package: call(("duckdb__" if "duckdb__" + name in NAMES
                                                     else "default__") + name),
                get_relation=lambda db, schema, name: name if name in tables() else None,
                get_columns_in_relation=lambda rel: [SimpleNamespace(name=r[0]) for r in execute(
                    "select column_name from information_schema.columns"
                    f" where table_name = '{rel.identifier}'")],
                cache_added=lambda r: None),
            "statement": lambda name, caller=None: (execute(caller()), "")[1],
            "run_query": run_query,
            "this": SimpleNamespace(identifier="deid_patterns"),
            "exceptions": SimpleNamespace(raise_compiler_error=_raise),
        }
    return macro_caller(FILES, context)


TRUTH = _Rel(database="d", schema="s", identifier="deid_suppressed")
HISTORY = _Rel(database="d", schema="s", identifier="deid_release_history")
STORE = _Rel(database="d", schema="s", identifier="deid_released_hierarchies")

#: mrdx -> (level 3 chapter, level 2 block); every record's province at level 1
CODES = {"A010": ("Chapter A", "A01-A13"), "A011": ("Chapter A", "A01-A13"),
         "J189": ("Chapter J", "J09-J18"), "J150": ("Chapter J", "J09-J18")}


def _database(codes: dict[str, tuple[str, str]], level: int = 3) -> Any:
    """deid_suppressed (one record per code, released at ``level``), deid_hierarchy (levels 2
    and 3) and the history."""
    con = duckdb.connect()
    con.execute("create table deid_suppressed (mrdx__original varchar, mrdx__generalized varchar,"
                " province__original varchar, province__generalized varchar,"
                " age__original varchar, age__generalized varchar)")
    for code, (chapter, block) in codes.items():
        con.execute("insert into deid_suppressed values (?, ?, 'ON', 'East', '41', '40-49')",
                    [code, chapter if level == 3 else block])
    con.execute("create table deid_hierarchy (qi_name varchar, level integer,"
                " original_value varchar, generalized_value varchar)")
    for code, (chapter, block) in codes.items():
        con.execute("insert into deid_hierarchy values ('mrdx', 3, ?, ?), ('mrdx', 2, ?, ?)",
                    [code, chapter, code, block])
    con.execute("create table deid_release_history (release_id varchar, release_name varchar,"
                " release_version bigint, status varchar, recorded_at varchar,"
                " hierarchy_values bigint, line_json varchar)")
    return con


def _publish(con: Any, release_id: str, version: int, level: int = 3) -> None:
    """As record_release does: the pairs are written once, and the history row counts what
    was written (review 8 final, R1)."""
    call = _caller(con)
    count = call("record_released_hierarchies")(_cfg(level), TRUTH, release_id, version)
    # and the fingerprint of the pairs written (line_json's hierarchy_check; review 19, F2)
    pairs = call("released_hierarchies_columns")()
    check = call("stored_rows_check")(STORE, pairs[3:], release_id, pairs[:3])
    con.execute("insert into deid_release_history values (?, 'living', ?, 'published', ?, ?, ?)",
                [release_id, version, f"2026-11-2{version}", count,
                 json.dumps({"hierarchy_check": check})])


def _moves(con: Any, ids: list[str], level: int = 3) -> dict:
    return _caller(con)("hierarchy_moves")(_cfg(level), TRUTH, "__generalized", ids, HISTORY)


def _replace_records(con: Any, codes: dict[str, tuple[str, str]], level: int = 3) -> None:
    fresh = _database(codes, level)
    for table in ("deid_suppressed", "deid_hierarchy"):
        con.execute(f"delete from {table}")
        con.register("fresh", fresh.execute(f"select * from {table}").df())
        con.execute(f"insert into {table} select * from fresh")
        con.unregister("fresh")



def _before_a_refresh(con) -> _Rel:  # noqa: ANN001 - a DuckDB connection
    """The store of releases r1 and r2 and deid_generalized over deid_suppressed, as
    assert_no_hierarchy_moves reads them in deid_patterns before a refresh."""
    con.execute("create table deid_release_records (release_id varchar)")
    con.execute("insert into deid_release_records values ('r1'), ('r2')")
    con.execute("create view deid_generalized as select mrdx__original, mrdx__generalized as mrdx,"
                " province__original, province__generalized as province from deid_suppressed")
    return _Rel(database="d", schema="s", identifier="deid_generalized")

def test_the_store_keeps_the_released_mapping_of_hierarchy_qis_only() -> None:
    con = _database(CODES)
    _publish(con, "r1", 1)
    rows = con.execute("select release_id, release_name, release_version, qi_name, hierarchy,"
                       " level, count(*) from deid_released_hierarchies group by all"
                       " order by qi_name").fetchall()
    # mrdx's 4 codes at level 3 and province at level 1; age (a rule) is not stored
    assert rows == [("r1", "living", 1, "mrdx", "diagnosis_hierarchy", 3, 4),
                    ("r1", "living", 1, "province", "province_hierarchy", 1, 1)]
    assert con.execute("select hierarchy_values from deid_release_history").fetchall() == [(5,)]


def test_a_grown_or_regenerated_hierarchy_moves_nothing() -> None:
    con = _database(CODES)
    _publish(con, "r1", 1)
    # the same mapping, regenerated, with a new code in a new group and a new record holding it
    _replace_records(con, {**CODES, "Z999": ("Chapter Z", "Z90-Z99")})
    assert _moves(con, ["r1"]) == {"moves": [], "lost": [], "edited": [], "total": 0}


def test_a_released_value_in_another_group_is_a_move_named_by_counts_only() -> None:
    """On 5dda012 nothing compared the hierarchy's content: the same name and level passed."""
    con = _database(CODES)
    _publish(con, "r1", 1)
    _publish(con, "r2", 2)  # a second version of the line, same mapping
    _replace_records(con, {**CODES, "J189": ("Chapter A", "J09-J18")})
    moved = _moves(con, ["r1", "r2"])
    assert moved == {"moves": [{"qi": "mrdx", "hierarchy": "diagnosis_hierarchy", "level": 3,
                                "count": 1}], "lost": [], "edited": [],
                     "total": 1}
    message = _caller(con)("hierarchy_moves_message")(moved)
    assert message.startswith("hierarchy diagnosis_hierarchy of quasi-identifier mrdx: 1 value(s)"
                              " released by the line's published versions at level 3 are in"
                              " another group now")
    assert "`restart: {reason: '...'}`" in message
    assert "J189" not in message and "Chapter" not in message
    # before a refresh (deid_patterns): the build fails with the same message
    generalized = _before_a_refresh(con)
    try:
        _caller(con)("assert_no_hierarchy_moves")(_cfg(), generalized, "deid_release_records")
    except _Refused as refused:
        assert "release 'living': nothing is published" in str(refused)
        assert "hierarchy diagnosis_hierarchy of quasi-identifier mrdx: 1 value(s)" in str(refused)
    else:
        raise AssertionError("not refused")


def test_a_move_at_another_level_of_the_line_is_read_from_deid_hierarchy() -> None:
    """Version 1 at level 3, this build at level 2 (mixed levels): the stored level-3 mapping
    is compared with today's deid_hierarchy at level 3."""
    con = _database(CODES)
    _publish(con, "r1", 1)
    _replace_records(con, {**CODES, "A011": ("Chapter J", "A01-A13")}, level=2)
    assert _moves(con, ["r1"], level=2)["moves"] == [
        {"qi": "mrdx", "hierarchy": "diagnosis_hierarchy", "level": 3, "count": 1}]
    _replace_records(con, CODES, level=2)
    assert _moves(con, ["r1"], level=2)["total"] == 0


def test_a_store_that_lost_rows_is_refused_and_an_older_version_is_not_compared() -> None:
    con = _database(CODES)
    # version 1 published before the mapping was kept: no count, no rows (not compared)
    con.execute("insert into deid_release_history values ('r0', 'living', 1, 'published',"
                " '2026-11-20', null, null)")
    assert _moves(con, ["r0"]) == {"moves": [], "lost": [], "edited": [], "total": 0}
    _publish(con, "r1", 2)
    con.execute("delete from deid_released_hierarchies where original_value = 'J150'")
    moved = _moves(con, ["r0", "r1"])
    assert moved["lost"] == ["living version 2 (4 of its 5 hierarchy value(s))"]
    assert "lost the mapping of living version 2" in _caller(con)("hierarchy_moves_message")(moved)
    con.execute("drop table deid_released_hierarchies")
    assert _moves(con, ["r0", "r1"])["lost"] == ["living version 2 (0 of its 5 hierarchy value(s))"]


def test_a_released_pair_edited_to_hide_a_move_is_refused() -> None:
    """Review 19, F2: a code moved to another group in the hierarchy, and its released pair in
    deid_released_hierarchies updated to the new group (counts unchanged): on 8b94a27
    hierarchy_moves saw no move and the nightly refresh published. The pairs are compared with
    the fingerprint the history row recorded at publish: refused, naming the version, never a
    value; a version recorded without it (an older package version) is not compared."""
    con = _database(CODES)
    _publish(con, "r1", 1)
    _publish(con, "r2", 2)
    _replace_records(con, {**CODES, "J189": ("Chapter A", "J09-J18")})
    con.execute("update deid_released_hierarchies set generalized_value = 'Chapter A'"
                " where original_value = 'J189' and level = 3")
    moved = _moves(con, ["r1", "r2"])
    assert moved == {"moves": [], "lost": [], "edited": [
        "living version 1 (release r1)", "living version 2 (release r2)"], "total": 0}
    message = _caller(con)("hierarchy_moves_message")(moved)
    assert ("deid_released_hierarchies does not hold the mapping released by living version 1"
            " (release r1), living version 2 (release r2)") in message
    assert "`restart: {reason: '...'}`" in message
    assert "J189" not in message and "Chapter" not in message
    # before a refresh (deid_patterns) too
    generalized = _before_a_refresh(con)
    with pytest.raises(_Refused, match="does not hold the mapping released by living version 1"):
        _caller(con)("assert_no_hierarchy_moves")(_cfg(), generalized, "deid_release_records")
    # version 1 recorded without a check (published by an older package version): not compared
    con.execute("update deid_release_history set line_json = null where release_id = 'r1'")
    assert _moves(con, ["r1", "r2"])["edited"] == ["living version 2 (release r2)"]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_pairs_are_each_records_pairs_distinct(seed: int) -> None:
    """released_hierarchy_pairs_sql reduces the records to the distinct values of the columns it
    reads before crossing them with the QIs' names (issue 37: PostgreSQL's publish step crossed
    7.1 million rows into its DISTINCT at 2.4 million records): the same rows as every record's
    (qi_name, level, original, generalized) per hierarchy QI, distinct, computed here in Python,
    on random records with repeats, NULLs, two QIs reading one source column (block from mrdx)
    and a rule QI that is not stored; the records as a table and as a parenthesised query."""
    rng = random.Random(seed)
    con = duckdb.connect()
    con.execute("create table recs (rid integer, mrdx__original varchar, mrdx__generalized varchar,"
                " block__generalized varchar, province__original varchar,"
                " province__generalized varchar, age__original varchar, age__generalized varchar)")
    records = []
    for rid in range(400):
        code = rng.choice(["A010", "A011", "J189", "J150", "Z999", None])
        chapter = None if code is None or rng.random() < 0.1 else "Chapter " + code[0]
        block = None if code is None or rng.random() < 0.1 else code[:3] + rng.choice(["", "x"])
        prov = rng.choice(["ON", "QC", "BC", None])
        region = None if prov is None or rng.random() < 0.1 else rng.choice(["East", "West"])
        age = str(rng.randint(0, 99))
        records.append((rid, code, chapter, block, prov, region, age, age[:1] + "0s"))
    con.executemany("insert into recs values (?, ?, ?, ?, ?, ?, ?, ?)", records)
    qis = [{"name": "mrdx", "hierarchy": "diagnosis_hierarchy", "level": 3},
           {"name": "block", "hierarchy": "diagnosis_hierarchy", "level": 2},
           {"name": "province", "hierarchy": "province_hierarchy", "level": 1},
           {"name": "age", "hierarchy": None, "level": 1}]
    cfg = {"name": "living", "qis": [SimpleNamespace(column=q["name"], **q) for q in qis],
           "released_qis": [q["name"] for q in qis], "source": "main.discharge"}
    sources = {"mrdx": "mrdx", "block": "mrdx", "province": "province", "age": "age"}
    want = set()
    for _, code, chapter, block, prov, region, _, _ in records:
        want |= {("mrdx", 3, code, chapter), ("block", 2, code, block),
                 ("province", 1, prov, region)}
    call = _caller(con, sources)("released_hierarchy_pairs_sql")
    for relation in ("recs", "(select * from recs)"):
        got = con.execute(str(call(cfg, relation, "__generalized"))).fetchall()
        assert len(got) == len(set(got)) and set(got) == want, relation
