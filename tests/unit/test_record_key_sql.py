"""The record key is a keyed hash of the record id's canonical text (review 8, F4): an id
column whose type changes upstream (INTEGER -> DECIMAL(18,2), values unchanged) keeps every
record's key, so the combined check still finds the records recipients hold. Rendered with
Jinja outside dbt (macros/gates/combined_releases.sql) and run on DuckDB in memory."""

from __future__ import annotations

from types import SimpleNamespace

import duckdb

from tests.macro_render import macro_caller
from tests.unit.test_line_lock_sql import ROOT

FILE = ROOT / "macros" / "gates" / "combined_releases.sql"


def _hash_sql(expression: str) -> str:
    def context(call):
        return {
            "dbt_deid": SimpleNamespace(
                own=lambda m: m,
                record_id_text_sql=lambda e: call("record_id_text_sql")(e)),
            "dbt": SimpleNamespace(
                type_string=lambda: "varchar", hash=lambda x: f"md5({x})",
                concat=lambda xs: " || ".join(xs),
                split_part=lambda s, d, n: f"split_part({s}, {d}, {n})"),
            "adapter": SimpleNamespace(dispatch=lambda name, pkg: call("default__" + name)),
        }
    return str(macro_caller([FILE], context)("keyed_record_hash_sql")(expression, "k"))


def _keys(con, column_type: str, ids: list[str]) -> list[str]:
    rows = ", ".join(f"({n}, {i})" for n, i in enumerate(ids))
    con.execute(f"create or replace table t as select n, cast(v as {column_type}) as id"
                f" from (values {rows}) as x(n, v)")
    sql = _hash_sql("t.id")
    return [r[0] for r in con.execute(f"select {sql} from t cross join (select 'k3y' as"
                                      " key_value) as k order by t.n").fetchall()]


def test_a_numeric_id_keeps_its_key_whatever_its_scale() -> None:
    con = duckdb.connect()
    ids = ["1", "7", "-12", "4000", "123456789012"]
    as_integer = _keys(con, "bigint", ids)
    # the key of an integer id is unchanged (stores written before keep their keys)
    assert as_integer == [con.execute(f"select md5('k3y|' || {i})").fetchone()[0]
                          for i in ids]
    for other in ["decimal(18,2)", "decimal(38,0)", "decimal(20,4)", "varchar"]:
        assert _keys(con, other, ids) == as_integer, other
    # a fractional id keeps its fraction (1.5 and 1.50 differ: their texts are kept)
    (half,) = _keys(con, "decimal(18,2)", ["1.5"])
    (one,) = _keys(con, "decimal(18,2)", ["1"])
    assert half != one
    # text ids are their text, an integral-looking one without its zero fraction
    assert _keys(con, "varchar", ["'A-1.0'"]) == _keys(con, "varchar", ["'A-1'"])
    assert _keys(con, "varchar", ["'A.1'"]) != _keys(con, "varchar", ["'A'"])
