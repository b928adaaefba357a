"""The published cells formatted once per distinct value (macros/publish/published_value_lookup.sql,
session 14): the candidate write and the proof published_matches_checked read each formatted
column from a lookup of its distinct values instead of formatting every record. The lookup must
give every row exactly the cell the per-row formatting gives (the same rows, in number and
values; a NULL, suppressed cell stays NULL), and leave a column without a kind as it is.
Rendered with Jinja and run on DuckDB (no dbt run); the formatting is a stand-in (the real one,
published_value_sql, is compared with an independent form in the dbt tests: test_release_dbt).
"""

from __future__ import annotations

import random
from pathlib import Path
from types import SimpleNamespace

import duckdb

from tests.macro_render import macro_caller

ROOT = Path(__file__).resolve().parents[2]


def _shown(cfg: dict, kind: dict | None, expr: str) -> str:
    """A stand-in for published_value_sql: a one-to-one text formatting, NULL stays NULL."""
    return expr if kind is None else f"('[' || {expr} || ', ' || {kind['suffix']} || ')')"


def test_lookup_cells_equal_the_per_row_cells() -> None:
    call = macro_caller([ROOT / "macros" / "publish" / "published_value_lookup.sql"],
                        lambda call: {"dbt_deid": SimpleNamespace(
                            ident=lambda n: n, published_value_sql=_shown)})
    rng = random.Random(7)
    con = duckdb.connect()
    con.execute("create table t (rid integer, a varchar, b varchar, c varchar)")
    rows = [(i, rng.choice(["x", "y", "<missing>", None]), rng.choice(["1", "2", None]),
             rng.choice(["p", "q"])) for i in range(500)]
    con.executemany("insert into t values (?, ?, ?, ?)", rows)
    kinds = {"a": {"suffix": "'A'"}, "b": {"suffix": "'B'"}}
    out = call("default__published_value_lookup")({}, kinds, "t", "s", ["a", "b", "c"])
    assert out["exprs"]["c"] == "s.c" and len(out["joins"]) == 2
    looked = con.execute(
        f"select s.rid, {out['exprs']['a']}, {out['exprs']['b']}, {out['exprs']['c']} from t as s "
        + " ".join(out["joins"]) + " order by s.rid").fetchall()
    per_row = con.execute(
        f"select rid, {_shown({}, kinds['a'], 'a')}, {_shown({}, kinds['b'], 'b')}, c from t"
        " order by rid").fetchall()
    assert looked == per_row
    assert len(looked) == 500
    assert any(r[1] is None for r in looked) and any(r[2] is None for r in looked)
