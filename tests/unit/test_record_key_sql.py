"""The record key is a keyed hash of the record id's canonical text (review 8, F4): an id
column whose type changes upstream (INTEGER -> DECIMAL(18,2), values unchanged) keeps every
record's key, so the combined check still finds the records recipients hold. Rendered with
Jinja outside dbt (macros/gates/combined_releases.sql) and run on DuckDB in memory."""

from __future__ import annotations

import functools
from types import SimpleNamespace

import duckdb

from tests.macro_render import macro_caller
from tests.unit.test_line_lock_sql import ROOT

FILE = ROOT / "macros" / "gates" / "combined_releases.sql"


def _caller():
    """combined_releases.sql's macros with the dbt and dbt_deid helpers they call."""
    def context(call):
        return {
            "dbt_deid": SimpleNamespace(
                own=lambda m: m, ident=lambda n: f'"{n}"',
                literal=lambda v: "'" + str(v).replace("'", "''") + "'",
                keyed_record_hash_sql=lambda e, k: call("keyed_record_hash_sql")(e, k),
                record_id_text_sql=lambda e: call("record_id_text_sql")(e),
                samples_disjoint=lambda a, b: call("samples_disjoint")(a, b),
                sample_range=lambda sample: call("sample_range")(sample),
                _versions_text=lambda cfg, es: call("_versions_text")(cfg, es)),
            "dbt": SimpleNamespace(
                type_string=lambda: "varchar", hash=lambda x: f"md5({x})",
                concat=lambda xs: " || ".join(xs),
                split_part=lambda s, d, n: f"split_part({s}, {d}, {n})"),
            "adapter": SimpleNamespace(dispatch=lambda name, pkg: call("default__" + name)),
        }
    return macro_caller([FILE, ROOT / "macros" / "releases" / "release_input.sql"], context)


@functools.cache
def _hash_sql(expression: str) -> str:
    return str(_caller()("keyed_record_hash_sql")(expression, "k"))


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


def test_a_version_sharing_no_record_with_the_line_is_refused_unless_disjoint() -> None:
    """Review 8, F4: a version sharing no record with the line's published versions (the ids'
    type or text changed, a reload) is refused naming the record id column and `restart`;
    declared disjoint samples (same seed, other slots) are not; another epoch's versions (not
    in `epoch_ids`) are not asked for."""
    call = _caller()

    def half(slot, seed=3):
        return {"fraction": 0.5, "slot": slot, "seed": seed}

    def earlier(*samples):
        return [{"release_id": f"r{i}", "version": i + 1, "name": "x", "sample": s}
                for i, s in enumerate(samples)]

    cfg = {"name": "x", "record_id": "abstract_id", "sample": None}
    (msg,) = call("unshared_line_problems")(cfg, earlier(half(0), half(1)), ["r0", "r1"])
    assert "version(s) 1, 2" in msg and "'abstract_id'" in msg and "`restart:" in msg
    assert call("unshared_line_problems")(cfg, earlier(None), []) == []  # another epoch
    cfg["sample"] = half(1)
    assert call("unshared_line_problems")(cfg, earlier(half(0)), ["r0"]) == []
    for other in [half(1), half(0, seed=4), {"fraction": 0.3, "slot": 1, "seed": 3}, None]:
        assert call("unshared_line_problems")(cfg, earlier(other), ["r0"]) != [], other
    # thirds against halves: slot 2 of thirds [2/3, 1) overlaps half 1; slot 0 [0, 1/3) not
    cfg["sample"] = {"fraction": 1 / 3, "slot": 0, "seed": 3}
    assert call("unshared_line_problems")(cfg, earlier(half(1)), ["r0"]) == []
    cfg["sample"] = {"fraction": 1 / 3, "slot": 2, "seed": 3}
    assert call("unshared_line_problems")(cfg, earlier(half(1)), ["r0"]) != []


def test_changed_shared_records_count_each_record_against_its_latest_state() -> None:
    """Review 8, F4b: the records shared with the line and those whose quasi-identifiers' true
    values changed since their latest stored state (a renumbering changes almost all)."""
    call = _caller()
    con = duckdb.connect()
    con.execute("create table k as select 'k3y' as key_value")
    # r1: ids 1..20, age = id; r2 (later): ids 1..10 again, record 1's age corrected to 99
    # (the published cell of age '1' revealed as-is: __generalized null)
    con.execute("create table store as select release_id, md5('k3y|' || id) as record_key,"
                " cast(age as varchar) as age, cast(null as varchar) as age__generalized"
                " from (select 'r1' as release_id, range as id, range as age from range(1, 21)"
                " union all select 'r2', range, case when range = 1 then 99 else range end"
                " from range(1, 11))")
    con.execute("update store set age = null, age__generalized = '7' where release_id = 'r2'"
                " and record_key = md5('k3y|7')")  # suppressed cell, true value kept
    con.execute("create table truth as select cast(range as decimal(18,2)) as id,"
                " cast(case when range = 1 then 99 else range end as varchar)"
                " as age__generalized from range(1, 31)")
    cfg = {"record_id": "id"}

    def counts():
        sql = call("changed_shared_records_sql")(cfg, "truth", "k", "store", ["r1", "r2"],
                                                 ["age"])
        return con.execute(str(sql)).fetchone()[:2]

    assert counts() == (20, 0)  # 1's latest state is 99 (r2), 7's true value the kept one
    # renumbered: id -> 21 - id for the shared ids
    con.execute("update truth set id = 21 - id where id <= 20")
    shared, changed = counts()
    assert shared == 20 and changed >= 18
