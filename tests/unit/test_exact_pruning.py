"""The exact consistent-set check (macro ``exact_consistent_sql``) against a brute-force count.

The check is the definitive count of the guarantee (El Emam et al. 2011, discharge PUMF,
"Measuring the Probability of Re-identification"): a record's true values are consistent with
every released record that agrees with them on the released, unsuppressed cells (a suppressed
cell is consistent with anything, a missing true value equals no released value). The gates
prune it (``prune_k``): only the true tuples whose consistent count is below ``prune_k`` are
returned, each with its exact counts, and only the records that could belong to one are read
again (a record consistent with its own true values in a released class of at least
``prune_k`` records cannot).

This renders the package's macro with Jinja (no dbt run: ``ident``, ``literal`` and
``run_query`` are stand-ins), runs it on DuckDB over random tables that include what a broken
or tampered release would hold (released values that differ from the true ones, classes below
k, missing true values, zero counts) and compares every evaluated tuple's record count and
consistent count with a count in Python. The Spark form is compared with this one in
test_spark_exact.py.
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import duckdb
import pandas as pd
import pytest

from tests.macro_render import macro_caller

ROOT = Path(__file__).resolve().parents[2]
MACROS = sorted((ROOT / "macros" / "risk").glob("*.sql"))


def render(run_query: Any, *args: Any) -> str:
    """The SQL of ``default__exact_consistent_sql(*args)`` from the package's macro file."""
    call = macro_caller(MACROS, lambda call: {
        "dbt_deid": SimpleNamespace(
            ident=lambda name: name, can_inspect=lambda relation: True,
            null_safe_equal_sql=call("null_safe_equal_sql"), null_masks=call("null_masks")),
        "dbt": SimpleNamespace(type_string=lambda: "varchar"),
        "run_query": run_query})
    return str(call("default__exact_consistent_sql")(*args))


def random_rows(rng: random.Random, q: int, rows: int, counts: bool, values: int = 3,
                suppressed: float = 0.25) -> list[tuple]:
    """(released, true, count) rows: few values so classes are both small and large; 3% of the
    released cells differ from the true value (a release the gate must refuse), a share
    ``suppressed`` is suppressed, 5% of the true values are missing."""
    alphabet = "abcdefgh"[:values]
    out = []
    for _ in range(rows):
        truth = tuple(None if rng.random() < 0.05 else rng.choice(alphabet) for _ in range(q))
        released = []
        for t in truth:
            u = rng.random()
            released.append(rng.choice(alphabet + "z") if u < 0.03
                            else (None if u < 0.03 + suppressed else t))
        out.append((tuple(released), truth, rng.randint(0, 3) if counts else 1))
    return out


def expected(rows: list[tuple], prune_k: int | None) -> Counter:
    """(records with the true tuple, consistent released records) per true tuple; with
    ``prune_k``, only the tuples whose consistent count is below it."""
    def agrees(released: tuple, truth: tuple) -> bool:
        return all(p is None or (t is not None and p == t)
                   for p, t in zip(released, truth, strict=True))

    out: Counter = Counter()
    for truth in {t for _p, t, _n in rows}:
        consistent = sum(n for p, _t, n in rows if agrees(p, truth))
        if prune_k is None or consistent < prune_k:
            out[(sum(n for _p, t, n in rows if t == truth), consistent)] += 1
    return out


SHAPES = [  # (q, rows, distinct values, share suppressed)
    (1, 30, 8, 0.05), (2, 80, 5, 0.1), (3, 150, 4, 0.1), (3, 400, 5, 0.25), (4, 300, 3, 0.05),
    (2, 0, 3, 0.25)]
CASES = [  # (seed, shape, prune_k, pattern counts, chain_limit)
    (seed, shape, prune_k, counts, chain)
    for seed, shape in enumerate(SHAPES)
    for prune_k in (None, 2, 5)
    for counts in (False, True)
    for chain in (64, 0)
]


def case_rows(case: tuple) -> list[tuple]:
    seed, (q, n_rows, values, suppressed), _prune_k, counts, _chain = case
    return random_rows(random.Random(seed), q, n_rows, counts, values, suppressed)


@pytest.mark.parametrize("case", CASES, ids=["-".join(map(str, c)) for c in CASES])
def test_exact_consistent_counts(case) -> None:
    _seed, (q, *_shape), prune_k, counts, chain = case
    rows = case_rows(case)
    columns = [f"c{i}" for i in range(q)]
    data: dict[str, list] = {}
    for i, c in enumerate(columns):
        data[c] = pd.Series([r[0][i] for r in rows], dtype="object")
        data[c + "__generalized"] = pd.Series([r[1][i] for r in rows], dtype="object")
    data["n"] = pd.Series([r[2] for r in rows], dtype="int64")
    frame = pd.DataFrame(data)
    con = duckdb.connect()
    con.register("frame_view", frame)
    con.execute("create table rel as select "
                + ", ".join(f"cast({c} as varchar) as {c}" for c in frame.columns if c != "n")
                + ", n from frame_view")

    def run_query(sql: str) -> Any:
        return SimpleNamespace(rows=con.execute(sql).fetchall())

    sql = render(run_query, "rel", columns, "n" if counts else None, prune_k, chain)
    got = con.execute(sql).fetchall()
    assert len({r[0] for r in got}) == len(got)  # one row per true tuple, numbered
    assert Counter((int(r[1]), int(r[2])) for r in got) == expected(rows, prune_k)


def test_cases_reach_every_branch() -> None:
    """The random tables hold what the pruned check must catch: records whose released row
    contradicts their own true values, classes below k and tuples below k, among others."""
    pruned = [c for c in CASES if c[2] is not None and c[1][1] > 0]
    below = [sum(expected(case_rows(c), c[2]).values()) for c in pruned]
    every = [sum(expected(case_rows(c), None).values()) for c in pruned]
    assert sum(1 for b in below if b > 0) >= len(pruned) // 2  # tuples below k are found
    assert all(b < e for b, e in zip(below, every, strict=True))  # and others are pruned
    rows = case_rows(pruned[-1])
    assert any(p is not None and p != t for r in rows for p, t in zip(r[0], r[1], strict=True))
    sizes = Counter(r[0] for r in rows)
    assert min(sizes.values()) < 2 and max(sizes.values()) >= 5


def test_null_masks_are_sorted_whatever_order_the_warehouse_returns() -> None:
    """The masks (and so the compiled SQL of the exact check: one join per mask) do not depend
    on the order the warehouse returns the distinct null flags in: identical builds compiled
    three join orders in nine builds before the masks were sorted (session 7)."""
    rows = [(1, 0), (0, 1), (0, 0), (1, 1)]
    call = macro_caller(MACROS, lambda call: {
        "dbt_deid": SimpleNamespace(ident=lambda name: name, can_inspect=lambda relation: True),
        "run_query": lambda sql: SimpleNamespace(rows=rows)})
    masks = call("null_masks")("patterns", [["a", "b"], ["b"]])
    assert masks == [[[0, 0], [0, 1], [1, 0], [1, 1]], [[0], [1]]]
