"""The released pattern table from the pattern table and the suppression map (issue 33: "the
suppression model hands back the released pattern table"; the record-level released table is
read at most 4 times per build).

``released_patterns_sql`` over ``deid_patterns`` and ``deid_suppression_map`` must give what
``pattern_counts_sql`` gives on the records ``apply_suppression_sql`` writes (the checked
release grouped), for maps that suppress part of a pattern's records (rank ranges), all of them,
or none; and the weighted fingerprint the gate table proves it with must be equal for the
records and their pattern table, and differ when a count differs. Rendered with Jinja and run
on DuckDB (no dbt run).
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import duckdb
import pytest

from tests.macro_render import macro_caller

ROOT = Path(__file__).resolve().parents[2]
FILES = [ROOT / "macros" / "suppression" / "apply_suppression_sql.sql",
         ROOT / "macros" / "suppression" / "released_patterns_sql.sql",
         ROOT / "macros" / "suppression" / "released_masks_sql.sql",
         ROOT / "macros" / "generalize" / "pattern_counts_sql.sql",
         ROOT / "macros" / "generalize" / "original_value_sources.sql",
         ROOT / "macros" / "publish" / "table_fingerprint.sql"]

CFG = {"record_id": "rid", "qis": [{"name": "a", "column": "a"}, {"name": "b", "column": "b"}],
       "qi_names": ["a", "b"]}
PATTERN_COLUMNS = ["a", "a__generalized", "b", "b__generalized"]


def macros() -> Any:
    return macro_caller(FILES, lambda call: {
        "dbt_deid": SimpleNamespace(
            ident=lambda n: n, literal=lambda v: "'" + str(v).replace("'", "''") + "'",
            can_inspect=lambda relation: False,
            original_value_sources=call("original_value_sources"),
            null_safe_equal_sql=lambda *a: "true"),
        "dbt": SimpleNamespace(type_string=lambda: "varchar", type_bigint=lambda: "bigint")})


def masks_of(con: duckdb.DuckDBPyConnection, relation: str) -> set[tuple]:
    """The distinct NULL patterns of columns a, b of ``relation`` (null_masks' query)."""
    return set(con.execute("select distinct a is null, b is null from " + relation).fetchall())


def build(con: duckdb.DuckDBPyConnection, map_rows: list[tuple]) -> tuple[set, set]:
    """The generalized records (patterns (x, 1) x 5, (x, 2) x 3, (y, 1) x 4, (null, 1) x 2),
    the map, and the two pattern tables: (from the records, from the map)."""
    call = macros()
    con.execute("create or replace table gen (rid integer, a varchar, a__original varchar,"
                " b varchar, b__original varchar)")
    rid = 0
    for a, b, count in [("x", "1", 5), ("x", "2", 3), ("y", "1", 4), (None, "1", 2)]:
        for _ in range(count):
            rid += 1
            con.execute("insert into gen values (?, ?, ?, ?, ?)", [rid, a, a, b, b])
    con.execute("create or replace table map (a varchar, b varchar, n bigint, rank_from bigint,"
                " rank_to bigint, a__suppressed boolean, b__suppressed boolean)")
    for row in map_rows:
        con.execute("insert into map values (?, ?, ?, ?, ?, ?, ?)", list(row))
    con.execute("create or replace table truth as "
                + str(call("default__apply_suppression_sql")(CFG, "gen", "map")))
    con.execute("create or replace table pat as "
                + str(call("default__pattern_counts_sql")("gen", CFG["qi_names"])))
    grouped = set(con.execute(str(call("default__pattern_counts_sql")("truth", PATTERN_COLUMNS))
                              ).fetchall())
    derived = set(con.execute(str(call("default__released_patterns_sql")(CFG, "pat", "map"))
                              ).fetchall())
    return grouped, derived


@pytest.mark.parametrize("map_rows", [
    [],                                                     # nothing suppressed
    [("x", "1", 5, 1, 5, False, True)],                     # a whole pattern
    [("x", "1", 5, 1, 999, True, True)],                    # rank_to past n
    [("x", "1", 5, 1, 2, False, True), ("x", "1", 5, 3, 3, True, False),
     ("y", "1", 4, 4, 4, True, True)],                      # parts of patterns, ranges
    [("x", "2", 3, 2, 7, True, False), ("z", "9", 1, 1, 1, True, True)],  # a pattern not there
])
def test_released_patterns_are_the_suppressed_records_grouped(map_rows) -> None:
    con = duckdb.connect()
    grouped, derived = build(con, map_rows)
    assert derived == grouped
    assert sum(r[-1] for r in derived) == 14
    # the masks read from the map and the pattern table hold every mask of the released rows
    call = macros()
    rows = str(call("default__released_patterns_sql")(CFG, "pat", "map"))
    released = masks_of(con, f"({rows}) as r")
    masks = str(call("default__released_masks_sql")("pat", "map", ["a", "b"]))
    superset = masks_of(con, f"({masks}) as m")
    assert released <= superset
    # and no more than the map's flags (or none) OR'd with the patterns' NULLs (a is NULL in one)
    flags = {(bool(r[5]), bool(r[6])) for r in map_rows if r[2] > 0} | {(False, False)}
    nulls = {(True, False), (False, False)}
    assert superset == {(f[0] or n[0], f[1] or n[1]) for f in flags for n in nulls}


def test_weighted_fingerprint_of_the_records_equals_the_pattern_tables() -> None:
    """The gate table's proof that deid_suppressed_patterns is the checked release grouped:
    the records' weighted fingerprint (weight 1) equals the pattern table's (weight n), and a
    pattern table whose counts differ does not."""
    con = duckdb.connect()
    build(con, [("x", "1", 5, 1, 2, False, True), ("y", "1", 4, 4, 4, True, True)])
    call = macros()
    fp = call("duckdb__weighted_fingerprint_select_sql")

    def weighted(relation: str, weight: str) -> tuple:
        return con.execute(f"select {fp(PATTERN_COLUMNS, '', weight, ['r', 'f'])}"
                           f" from {relation}").fetchone()

    con.execute("create table released as "
                + str(call("default__pattern_counts_sql")("truth", PATTERN_COLUMNS)))
    assert weighted("truth", "1") == weighted("released", "n")
    assert weighted("truth", "1")[0] == 14
    con.execute("update released set n = n + 1 where a is null and b = '1'")
    con.execute("update released set n = n - 1 where a = 'x' and b = '1'")
    assert weighted("truth", "1")[1] != weighted("released", "n")[1]
