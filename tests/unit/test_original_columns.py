"""One original-value column per source column in the working tables.

Seed 000 releases the diagnosis at several hierarchy levels (El Emam et al. 2011, discharge
PUMF, Table 4): ``mrdx``, ``diag_block`` and ``diag_chapter`` all come from the source column
``mrdx``, so their original values are the same text. ``deid_generalized`` and
``deid_suppressed`` keep that text once, as ``<qi>__original`` of the first QI released from the
column (macro ``original_value_sources``), not once per QI: at 24 million records each
duplicate was a text column written twice (issue 18). Every reader of the original values
names the stored column through the same macro: the ``input_unchanged`` gate compares each
source column once, the information loss reads a QI's original values from its column.

This renders the package's macros with Jinja (no dbt run), runs them on DuckDB and checks the
columns, the values, and that the ``input_unchanged`` gate still catches a changed value of a
source column released as several QIs (the fail-closed check that a release was computed from
the input as it is now).
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import duckdb
import pytest

from tests.macro_render import macro_caller

ROOT = Path(__file__).resolve().parents[2]
FILES = [*sorted((ROOT / "macros" / "generalize").glob("*.sql")),
         ROOT / "macros" / "suppression" / "apply_suppression_sql.sql",
         ROOT / "macros" / "gates" / "gates.sql",
         ROOT / "macros" / "gates" / "released_levels_gate.sql",
         ROOT / "macros" / "publish" / "table_fingerprint.sql",
         *sorted((ROOT / "macros" / "risk").glob("*.sql"))]

MISSING = "<missing>"
#: QIs a and a_top from source column x (two hierarchy levels, as seed 000's diagnosis), b from
#: y, and b_too from y spelt "Y": the same column on DuckDB, but two columns on an engine with
#: case-sensitive quoted names, so it keeps its own original column (merging by spelling only
#: never leaves a source column unchecked).
CFG = {
    "record_id": "rid", "missing_label": MISSING,
    "qis": [{"name": "a", "column": "x", "level": 1}, {"name": "b", "column": "y", "level": 0},
            {"name": "a_top", "column": "x", "level": 2},
            {"name": "b_too", "column": "Y", "level": 0}],
    "qi_names": ["a", "b", "a_top", "b_too"], "released_qis": ["a", "b", "a_top", "b_too"],
}


def macros() -> Any:
    return macro_caller(FILES, lambda call: {
        "dbt_deid": SimpleNamespace(
            ident=lambda n: n, literal=lambda v: "'" + str(v).replace("'", "''") + "'",
            release_input=lambda cfg: "src", protected_input=lambda cfg: "src",
            source_input=lambda cfg: "src",
            fingerprint_select_sql=lambda columns, prefix="", present=None,
            names=("row_count", "fingerprint"): call(
                "duckdb__fingerprint_select_sql")(columns, prefix, present, names),
            release_source=lambda cfg: "src",
            _fingerprint_count=call("_fingerprint_count"),
            _fingerprint_when=call("_fingerprint_when"),
            released_levels=lambda: {},
            can_inspect=lambda relation: False,
            original_value_sources=call("original_value_sources"),
            information_loss_patterns_cte=call("information_loss_patterns_cte"),
            information_loss_grouped_sql=call("information_loss_grouped_sql"),
            information_loss_rows_sql=call("default__information_loss_rows_sql"),
            cte_materialized=lambda: "materialized ", type_double=lambda: "double",
            cte_computed_once=call("default__cte_computed_once"),
            release_ref=lambda name: {"deid_hierarchy": "hier"}[name],
            released_levels_flags_sql=call("default__released_levels_flags_sql"),
            released_levels_sums_sql=call("released_levels_sums_sql")),
        "dbt": SimpleNamespace(type_string=lambda: "varchar", type_bigint=lambda: "bigint",
                               type_float=lambda: "float")})


@pytest.fixture()
def con() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute("create table src (rid integer, x varchar, y integer)")
    con.execute("insert into src values (1, 'A1', 10), (2, 'A2', 20), (3, 'B1', null),"
                " (4, null, 10), (5, 'B2', 20)")
    con.execute("create table hier (qi_name varchar, level integer, original_value varchar,"
                " generalized_value varchar)")
    for orig, block, top in [("A1", "A", "AB"), ("A2", "A", "AB"), ("B1", "B", "AB"),
                             ("B2", "B", "AB")]:
        con.execute("insert into hier values ('a', 1, ?, ?), ('a_top', 2, ?, ?)",
                    [orig, block, orig, top])
    for v in ("10", "20"):
        con.execute("insert into hier values ('b', 0, ?, ?), ('b_too', 0, ?, ?)", [v, v, v, v])
    call = macros()
    con.execute("create table gen as " + str(call("default__generalize_sql")(CFG, "hier", {})))
    con.execute("create table map (a varchar, b varchar, a_top varchar, b_too varchar,"
                " n bigint, rank_from bigint, rank_to bigint, a__suppressed boolean,"
                " b__suppressed boolean, a_top__suppressed boolean, b_too__suppressed boolean)")
    con.execute("insert into map values ('A', '20', 'AB', '20', 1, 1, 1, false, true, false,"
                " false)")
    con.execute("create table truth as "
                + str(call("default__apply_suppression_sql")(CFG, "gen", "map")))
    return con


def columns(con: duckdb.DuckDBPyConnection, table: str) -> list[str]:
    return [r[0] for r in con.execute(f"describe {table}").fetchall()]


def test_one_original_column_per_source_column(con) -> None:
    assert columns(con, "gen") == ["rid", "a", "a__original", "b", "b__original", "a_top",
                                   "b_too", "b_too__original"]
    assert columns(con, "truth") == [
        "rid", "a", "a__generalized", "a__original", "b", "b__generalized", "b__original",
        "a_top", "a_top__generalized", "b_too", "b_too__generalized", "b_too__original"]
    got = con.execute("select rid, a, a__original, b, b__original, a_top from gen"
                      " order by rid").fetchall()
    assert got == [(1, "A", "A1", "10", "10", "AB"), (2, "A", "A2", "20", "20", "AB"),
                   (3, "B", "B1", MISSING, MISSING, "AB"),
                   (4, MISSING, MISSING, "10", "10", MISSING), (5, "B", "B2", "20", "20", "AB")]
    # the map suppresses b of pattern (A, 20, AB): record 2 only
    assert con.execute("select rid from truth where b is null").fetchall() == [(2,)]


def test_original_value_sources_maps_each_qi_to_the_stored_column() -> None:
    sources = macros()("original_value_sources")(CFG)
    assert sources == {"a": "a", "b": "b", "a_top": "a", "b_too": "b_too"}


def gate(con: duckdb.DuckDBPyConnection) -> list[tuple]:
    return con.execute(str(macros()("default__gate_input_unchanged_sql")("truth", CFG))).fetchall()


def test_input_unchanged_gate_passes_on_the_input_it_was_computed_from(con) -> None:
    assert gate(con) == []


@pytest.mark.parametrize("change", [
    "update src set x = 'A2' where rid = 1",    # a value of the column released as a and a_top
    "update src set x = null where rid = 2",    # a value becomes missing
    "update src set x = 'B1' where rid = 4",    # a missing value gets one
    "update src set y = 20 where rid = 1",
    "insert into src values (6, 'A1', 10)",     # a record the release has not seen
])
def test_input_unchanged_gate_catches_every_change(con, change: str) -> None:
    con.execute(change)
    assert gate(con) == [(1,)]


def test_input_unchanged_gate_fingerprints_the_checked_release_in_the_same_scan(con) -> None:
    """The gate table's form (one scan of the checked release): the changed records' count and
    the checked release's fingerprint, the value table_fingerprint_sql gives on it alone (the
    checked_hash a later publish compares with), whatever the source holds (a full outer join:
    a record deleted from the source is still hashed)."""
    call = macros()
    cols = columns(con, "truth")
    alone = con.execute(str(call("duckdb__table_fingerprint_sql")("truth", cols))).fetchone()

    def combined() -> tuple:
        return con.execute(str(call("default__gate_input_unchanged_sql")("truth", CFG, cols))
                           ).fetchone()

    assert combined() == (0, *alone)
    con.execute("update src set x = 'A2' where rid = 1")
    con.execute("insert into src values (6, 'A1', 10)")
    assert combined() == (2, *alone)
    con.execute("delete from src where rid in (3, 4)")
    assert combined() == (2, *alone)
    con.execute("update truth set b = 'changed' where rid = 5")
    assert combined()[2] != alone[1]


def test_information_loss_reads_the_stored_original_column(con) -> None:
    call = macros()
    sql = str(call("default__information_loss_sql")(CFG, "truth", None))
    assert "a_top__original" not in sql
    rows = {r[0]: r for r in con.execute(sql).fetchall()}
    assert rows["b"][3] == 1 and rows["a_top"][3] == 0  # suppressed cells
    # a_top: the entropy of the original values within its released classes, read from a's
    # stored column: class AB holds 4 records with 4 distinct originals (4 x log2(4) bits), the
    # missing label's class one record (0 bits)
    assert rows["a_top"][7] == pytest.approx(8.0)


def test_input_unchanged_gate_counts_a_source_record_without_an_id(con) -> None:
    """A source record with a NULL record id never joins the checked release; both forms count
    it as a record the release has not seen (the gate table's full outer join used to skip it,
    reading a NULL id as a row of the checked release alone)."""
    call = macros()
    cols = columns(con, "truth")
    con.execute("insert into src values (null, 'A1', 10)")
    assert gate(con) == [(1,)]
    combined = con.execute(str(call("default__gate_input_unchanged_sql")("truth", CFG, cols))
                           ).fetchone()
    assert combined[0] == 1


def test_input_unchanged_gate_fingerprints_the_source_in_the_same_scan(con) -> None:
    """The gate table's form with the source's columns (issue 33: the source read at most 3
    times per build): the same scan also gives the source's fingerprint, the value
    table_fingerprint_sql gives on the source alone (what the gate table records as input_hash
    and compares with the input snapshot's), whatever the checked release holds."""
    call = macros()
    cols, src_cols = columns(con, "truth"), columns(con, "src")
    cfg = {**CFG, "sample": None}

    def combined() -> tuple:
        return con.execute(str(call("default__gate_input_unchanged_sql")(
            "truth", cfg, cols, src_cols))).fetchone()

    def alone() -> tuple:
        return con.execute(str(call("duckdb__table_fingerprint_sql")("src", src_cols))
                           ).fetchone()

    assert combined()[3:] == alone()
    con.execute("update src set x = 'A2' where rid = 1")
    con.execute("insert into src values (null, 'A1', 10)")
    con.execute("delete from truth where rid = 5")
    got = combined()
    assert got[3:] == alone() and got[0] == 3


def test_released_levels_are_counted_in_the_same_scan(con) -> None:
    """Review 9, G4: the gate table's one scan of the checked release also counts, per QI, the
    records whose true value at the released level is not their original generalized at the
    level the gate table would record (the gate released_levels): none at the levels the
    release was built at (a missing value is the missing label at every level); at another
    level of the same hierarchy, every record with a value; a hierarchy slice with two groups
    for one value flags its records and doubles none. The counts change nothing else the scan
    gives (changed records, the checked release's fingerprint)."""
    call = macros()
    cols = columns(con, "truth")
    for orig in ("A1", "A2", "B1", "B2"):
        con.execute("insert into hier values ('a', 2, ?, 'AB')", [orig])

    def scan(levels: dict | None) -> tuple:
        return con.execute(str(call("default__gate_input_unchanged_sql")(
            "truth", CFG, cols, None, None, levels))).fetchone()

    built = {"a": 1, "b": 0, "a_top": 2, "b_too": 0}
    plain = scan(None)
    assert scan(built) == (*plain, 0, 0, 0, 0)
    # a released at level 2 now (as deid_ola_levels rebuilt by another invocation would say):
    # records 1, 2, 3 and 5 hold level-1 values; record 4's missing label is at every level
    assert scan({**built, "a": 2}) == (*plain, 4, 0, 0, 0)
    assert scan({**built, "a_top": 1}) == (*plain, 0, 0, 4, 0)
    con.execute("insert into hier values ('b', 0, '10', '10x')")  # two groups for 10
    assert scan(built) == (*plain, 0, 2, 0, 0)  # records 1 and 4, once each
