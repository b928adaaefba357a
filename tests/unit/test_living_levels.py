"""The mixed-level combination reference (dbt_deid.living.levels, issue 32 item 2) against a
hand-counted case and against the tests' independent check (tests/combined_view_check.py)."""

from __future__ import annotations

import random

import pytest

from dbt_deid.living.levels import LevelRelease, combined_rows, level_figures
from tests.combined_view_check import mixed_level_figures

COLUMNS = ["age", "admission"]


def _quarter(q: str, value: object, lo: int, hi: int) -> object:
    """'2024-05' (level 1, month) -> '2024-Q2' (level 2, quarter)."""
    assert (lo, hi) == (1, 2) and q == "admission"
    year, month = str(value).split("-")
    return f"{year}-Q{(int(month) - 1) // 3 + 1}"


def _coarsen(q: str, value: object, lo: int, hi: int) -> object:
    return _quarter(q, value, lo, hi) if q == "admission" else value


def test_the_finest_cell_and_consistency_at_each_cells_level():
    # four records, one age group; months 01, 01, 02, 04 -> quarters Q1, Q1, Q1, Q2
    months = {1: "2024-01", 2: "2024-01", 3: "2024-02", 4: "2024-04"}
    coarse = LevelRelease({"age": 1, "admission": 2}, {
        r: (("30-39", _quarter("admission", m, 1, 2) if r != 4 else None),
            ("30-39", _quarter("admission", m, 1, 2))) for r, m in months.items()})
    fine = LevelRelease({"age": 1, "admission": 1}, {
        r: (("30-39", m if r in (1, 2) else None), ("30-39", m)) for r, m in months.items()})
    rows = combined_rows(COLUMNS, [coarse, fine], _coarsen)
    assert rows[1].cells["admission"] == (1, "2024-01")  # the month, finer than its quarter
    assert rows[3].cells["admission"] == (2, "2024-Q1")  # only the quarter was revealed
    assert rows[4].cells["admission"] is None  # suppressed in both
    assert rows[4].true_at[("admission", 2)] == "2024-Q2"  # coarsened from the month
    # record 1 (January): rows 1, 2 (January), 3 (Q1 holds January) and 4 (suppressed): 4;
    # record 3 (February): row 3 (Q1) and row 4: 2; record 4 (April, Q2): only row 4: 1
    figures = level_figures(COLUMNS, [coarse, fine], [COLUMNS], 3, _coarsen)
    assert figures == {"age+admission": (1, 2)}
    # the coarse release twice (one level): only record 4 (alone in Q2) is below k; the
    # finer release is what puts record 3 below k too
    both = level_figures(COLUMNS, [coarse, coarse], [COLUMNS], 3, _coarsen)
    assert both == {"age+admission": (1, 1)}


def test_a_value_changed_between_levels_is_refused():
    a = LevelRelease({"age": 1, "admission": 1}, {1: (("30-39", None), ("30-39", "2024-01"))})
    b = LevelRelease({"age": 1, "admission": 1}, {1: (("30-39", None), ("30-39", "2024-02"))})
    with pytest.raises(ValueError, match="two true values of admission at level 1"):
        combined_rows(COLUMNS, [a, b], _coarsen)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_reference_agrees_with_the_independent_check(seed):
    rng = random.Random(seed)
    records = {r: (rng.choice(["20-29", "30-39", "40-49"]), f"2024-{rng.randint(1, 12):02d}")
               for r in range(60)}

    def release(level: int, p: float) -> LevelRelease:
        out = {}
        for r, (age, month) in records.items():
            true = (age, month if level == 1 else _quarter("admission", month, 1, 2))
            out[r] = (tuple(None if rng.random() < p else v for v in true), true)
        return LevelRelease({"age": 1, "admission": level}, out)

    releases = [release(2, 0.2), release(1, 0.5), release(2, 0.1)]
    combinations = [COLUMNS, ["admission"]]
    mine = level_figures(COLUMNS, releases, combinations, 5, _coarsen)
    theirs = mixed_level_figures(COLUMNS, [(r.levels, r.records) for r in releases],
                                 combinations, 5)
    assert mine == theirs
