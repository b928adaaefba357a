"""The original stage of the risk CDF with QIs released from one source column.

Seed 000 releases the diagnosis at several hierarchy levels (El Emam et al. 2011, discharge
PUMF, Table 4): its QIs ``diag_block`` and ``diag_chapter`` come from one source column, so
their original values (``<qi>__original``) are equal and the combinations that differ only by
the level have the same classes at the original stage. ``risk_cdf_sql`` with ``same_values``
(macro ``original_value_sources``) reads them as one column: one window and one class count
per distinct set of columns instead of one per combination. This renders the package's macros
with Jinja (no dbt run) and checks on DuckDB that the figures are those of the form that reads
every column (El Emam et al. 2009 (CJHP), Figure 4: the cumulative distribution of record risk).
"""

from __future__ import annotations

import random
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import duckdb
import pandas as pd
import pytest

from tests.macro_render import macro_caller

ROOT = Path(__file__).resolve().parents[2]
FILES = [*sorted((ROOT / "macros" / "risk").glob("*.sql")),
         ROOT / "macros" / "risk_suite" / "diagnostics_sql.sql",
         ROOT / "macros" / "risk_suite" / "risk_cdf_at_size.sql"]


def render(*args: Any) -> str:
    """The SQL of ``default__risk_cdf_sql(*args)`` from the package's macro files."""
    call = macro_caller(FILES, lambda call: {
        "dbt_deid": SimpleNamespace(
            ident=lambda n: n, literal=lambda v: "'" + str(v).replace("'", "''") + "'",
            risk_stage_columns=call("default__risk_stage_columns"),
            risk_cdf_at_size_sql=call("risk_cdf_at_size_sql"),
            smallest_class_patterns_sql=call("default__smallest_class_patterns_sql"),
            class_sizes_sql=call("default__class_sizes_sql"),
            cte_computed_once=lambda sql: sql),
        "dbt": SimpleNamespace(type_bigint=lambda: "bigint")})
    return str(call("default__risk_cdf_sql")(*args))


COMBINATIONS = [["a", "b_block"], ["a", "b_chapter"], ["b_chapter", "c"],
                ["a", "b_block", "c"], ["a", "b_chapter", "c"]]
SAME = {"a": "a", "b_block": "b_block", "b_chapter": "b_block", "c": "c"}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_one_column_per_source_gives_the_same_figures(seed: int) -> None:
    rng = random.Random(seed)
    rows = 300
    b = [rng.choice(["x1", "x2", "y1", "y2", "<missing>"]) for _ in range(rows)]
    frame = pd.DataFrame({
        "rid": range(rows),
        "a__original": [rng.choice("pqrs") for _ in range(rows)],
        "b_block__original": b, "b_chapter__original": b,  # one source column, two levels
        "c__original": [rng.choice("uvw") for _ in range(rows)]})
    con = duckdb.connect()
    con.register("frame_view", frame)
    con.execute("create table gen as select * from frame_view")
    deduped = render("gen", "rid", COMBINATIONS, "original", None, SAME)
    every = render("gen", "rid", COMBINATIONS, "original")
    # one window and one class count per distinct column set: 3 sets, not 5 combinations
    assert deduped.count("over (partition by") == 3 + 3  # + the CDF's three windows
    assert every.count("over (partition by") == 5 + 3
    assert "b_chapter__original" not in deduped
    order = " order by combination, class_size"
    got = con.execute(f"select * from ({deduped}) as d{order}").fetchall()
    want = con.execute(f"select * from ({every}) as e{order}").fetchall()
    assert got == want
    assert {r[1] for r in got} == {"+".join(c) for c in COMBINATIONS} | {"(all combinations)"}
