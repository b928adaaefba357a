"""The mask-cover suppression (dbt_deid.mask_cover): both gates against brute force, the choice
of cells on hand-computed cases, weights, the mask budget and determinism."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dbt_deid.errors import ConfigError
from dbt_deid.mask_cover import cover_combination, enumerate_masks
from dbt_deid.patterns import SUPPRESSED, PatternTable
from dbt_deid.suppression import (
    _ClassIndex,
    _grow_fully_suppressed,
    run_suppression,
    verify_result,
)
from tests.independent_check import release_violations


def _released(result) -> tuple[list[str], list[list], list[list]]:
    """Columns, true rows and published rows (None = suppressed), one per record."""
    t = result.table
    cols = list(t.columns)
    truth = result.true_codes()
    rows_t, rows_p = [], []
    for i in range(len(t.counts)):
        tv = [str(t.labels[j][truth[i, j]]) for j in range(len(cols))]
        pv = [None if t.codes[i, j] == SUPPRESSED else str(t.labels[j][t.codes[i, j]])
              for j in range(len(cols))]
        rows_t += [tv] * int(t.counts[i])
        rows_p += [pv] * int(t.counts[i])
    return cols, rows_t, rows_p


def _cells(result) -> int:
    t = result.table
    return int(((t.codes == SUPPRESSED).sum(axis=1) * t.counts).sum())


def _random_frame(rng: np.random.Generator, n: int, q: int) -> pd.DataFrame:
    data = {}
    for j in range(q):
        alphabet = [f"v{j}{i}" for i in range(int(rng.integers(1, 5)))]
        p = rng.dirichlet(np.ones(len(alphabet)) * 0.7)  # skewed: small classes form
        data[f"c{j}"] = rng.choice(alphabet, size=n, p=p)
    return pd.DataFrame(data)


@pytest.mark.parametrize("seed", range(40))
def test_random_tables_pass_both_checks_by_brute_force(seed: int) -> None:
    """Own-category classes and exact consistent sets >= k on every combination, counted by
    tests/independent_check.py (plain loops over records), on small random tables."""
    rng = np.random.default_rng(seed)
    q = int(rng.integers(2, 6))
    frame = _random_frame(rng, int(rng.integers(8, 60)), q)
    cols = list(frame.columns)
    combos = [list(rng.choice(cols, size=int(rng.integers(1, q + 1)), replace=False))
              for _ in range(int(rng.integers(1, 4)))]
    k = int(rng.integers(2, 6))
    weights = {c: float(rng.choice([0.0, 0.25, 1.0])) for c in cols if rng.random() < 0.5}
    patterns = frame.value_counts().reset_index(name="n")
    result = run_suppression(patterns, k, combos, weights, algorithm="mask_cover")
    columns, truth, published = _released(result)
    assert release_violations(columns, truth, published, combos, k) == []
    assert all(c.ok and c.records_below_k_exact == 0 for c in verify_result(result))
    assert result.stats.phase1_cells == 0
    assert result.stats.cells == _cells(result)


def test_one_mask_instead_of_phase_1_then_phase_2() -> None:
    """k = 3: (a,1) x2, (a,2) x1, (b,1) x3. Suppressing B in the three `a` records (3 cells)
    is enough; the reference suppresses B=2 in phase 1, then A=a and B=1 in phase 2 (6)."""
    frame = pd.DataFrame({"A": ["a", "a", "b"], "B": ["1", "2", "1"], "n": [2, 1, 3]})
    ref = run_suppression(frame, 3, [["A", "B"]])
    mine = run_suppression(frame, 3, [["A", "B"]], algorithm="mask_cover")
    assert _cells(ref) == 6
    assert _cells(mine) == 3
    published = mine.published()
    assert sorted(map(tuple, published[["A", "B", "n"]].fillna("*").to_numpy().tolist())) == [
        ("a", "*", 1), ("a", "*", 2), ("b", "1", 3)]


@pytest.mark.parametrize(("weights", "suppressed"), [
    ({}, "A"),  # equal prices: the first mask in column order
    ({"A": 0.0}, "A"),
    ({"B": 0.0}, "B"),
    ({"A": 1.0, "B": 0.5}, "B"),
])
def test_weights_choose_the_column(weights: dict[str, float], suppressed: str) -> None:
    """Four singletons at k = 2: suppressing either column alone pairs them; the lower weight
    (the less important column) is the one suppressed."""
    frame = pd.DataFrame({"A": ["a", "a", "b", "b"], "B": ["1", "2", "1", "2"], "n": 1})
    result = run_suppression(frame, 2, [["A", "B"]], weights, algorithm="mask_cover")
    published = result.published()
    assert published[suppressed].isna().all()
    other = "B" if suppressed == "A" else "A"
    assert published[other].notna().all()


def test_a_small_mask_budget_still_passes() -> None:
    """With the masks cut to one level the rest is fully suppressed and grown to k."""
    rng = np.random.default_rng(7)
    frame = _random_frame(rng, 80, 5)
    table = PatternTable.from_frame(frame.value_counts().reset_index(name="n"),
                                    list(frame.columns), "n")
    work = table.copy()
    grow = lambda t, c, k: _grow_fully_suppressed(t, _ClassIndex(t, c, 0), k)  # noqa: E731
    cover_combination(work, np.arange(5), np.ones(5), 4, grow, max_masks=5)
    from dbt_deid.verify import check_coded

    checks = check_coded(table.codes[table.rows_of(work.origin)].astype(np.int64),
                         work.codes.astype(np.int64), [len(x) for x in work.labels],
                         work.columns, [list(work.columns)], 4, work.counts.astype(np.int64))
    assert checks[0].ok


def test_enumerated_masks_by_size_then_position() -> None:
    assert enumerate_masks(3) == [(0,), (1,), (2,), (0, 1), (0, 2), (1, 2)]
    assert len(enumerate_masks(14, 500)) == 14 + 91 + 364
    assert enumerate_masks(1) == []


def test_row_order_does_not_change_the_map() -> None:
    """The pattern table in another order gives the same suppression map (ties by labels)."""
    rng = np.random.default_rng(3)
    frame = _random_frame(rng, 200, 4)
    patterns = frame.value_counts().reset_index(name="n")
    combos = [["c0", "c1", "c2"], ["c1", "c3"]]
    maps = []
    for order in (np.arange(len(patterns)), rng.permutation(len(patterns))):
        res = run_suppression(patterns.iloc[order].reset_index(drop=True), 3, combos,
                              algorithm="mask_cover")
        smap = res.suppression_map().drop(columns="pattern_index")
        maps.append(smap.sort_values(list(smap.columns)).reset_index(drop=True))
    pd.testing.assert_frame_equal(maps[0], maps[1])


def test_propagation_and_record_mode() -> None:
    """Hierarchy propagation (source suppressed -> target suppressed) and one row per record
    with a record key: the release still passes on every combination."""
    rng = np.random.default_rng(11)
    fine = rng.choice(["a1", "a2", "b1", "b2", "b3"], size=60)
    frame = pd.DataFrame({"fine": fine, "coarse": [v[0] for v in fine],
                          "s": rng.choice(["x", "y", "z"], size=60),
                          "rid": [f"r{i}" for i in range(60)]})
    combos = [["fine", "s"], ["coarse", "s"]]
    result = run_suppression(frame, 4, combos, algorithm="mask_cover", count_column=None,
                             propagation=[("coarse", "fine")], record_key="rid")
    assert all(c.ok for c in verify_result(result))
    pub = result.table.codes
    j_fine, j_coarse = result.table.col("fine"), result.table.col("coarse")
    assert not ((pub[:, j_coarse] == SUPPRESSED) & (pub[:, j_fine] != SUPPRESSED)).any()


def test_unknown_algorithm_is_refused() -> None:
    frame = pd.DataFrame({"A": ["a"], "n": [3]})
    with pytest.raises(ConfigError, match="mask_cover"):
        run_suppression(frame, 2, [["A"]], algorithm="masks")


def test_cli_algorithm_option(tmp_path, capsys) -> None:
    """`suppress --algorithm mask_cover` writes a release that passes; --complete contradicts
    another --algorithm."""
    import json

    from dbt_deid.tools.cli import main

    src, out = tmp_path / "in.csv", tmp_path / "out.csv"
    src.write_text("A,B\na,1\na,1\na,2\nb,1\nb,1\nb,1\n", encoding="utf-8")
    argv = ["suppress", "--input", str(src), "--output", str(out), "--k", "3",
            "--combination", "A,B"]
    assert main([*argv, "--algorithm", "mask_cover"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["algorithm"] == "mask_cover"
    assert summary["cells_suppressed"] == 3
    assert all(c["ok"] for c in summary["combinations"])
    assert main([*argv, "--algorithm", "mask_cover", "--complete"]) == 2
    assert "--complete contradicts" in capsys.readouterr().err


@pytest.mark.parametrize(("propagation", "suppressed"), [((), "B"), ((("B", "C"),), "A")])
def test_price_counts_propagated_levels(propagation, suppressed: str) -> None:
    """Suppressing B also suppresses C (a coarser level) when B -> C propagates: two cells per
    record against one for A, so A is suppressed; without propagation the tie goes to the
    first column of the combination, B."""
    frame = pd.DataFrame({"B": ["1", "2", "1", "2"], "A": ["a", "a", "b", "b"],
                          "C": ["x", "y", "x", "y"], "n": 1})
    result = run_suppression(frame, 2, [["B", "A"]], algorithm="mask_cover",
                             propagation=list(propagation), columns=["C"])
    published = result.published()
    assert published[suppressed].isna().all()
    assert published[{"A": "B", "B": "A"}[suppressed]].notna().all()
    assert result.stats.cells == 4
