"""El Emam et al. 2011's combinations suppression: conformance cases and the release guarantee."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from dbt_deid.errors import ConfigError, DataError
from dbt_deid.patterns import PatternTable
from dbt_deid.suppression import (
    _ClassIndex,
    _grow_fully_suppressed,
    count_moles,
    phase1,
    run_suppression,
    verify_result,
)
from dbt_deid.verify import check_release, exact_consistent_counts
from tests.independent_check import smallest_class, smallest_consistent_set

WALK = ["sex", "year_of_birth", "diagnosis"]


def _records(result) -> pd.DataFrame:
    """One row per input record (count_column=None), in input order."""
    order = np.argsort(result.table.origin, kind="stable")
    return result.published().iloc[order].reset_index(drop=True)


def _expected(path) -> pd.DataFrame:
    """Expected output with "" for a suppressed cell (the conformance convention)."""
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def test_walkthrough_phase1_matches_figure_6(conformance_dir) -> None:
    case = conformance_dir / "walkthrough_k3"
    data = pd.read_csv(case / "input.csv", dtype=str)
    table = PatternTable.from_frame(data, WALK, count_column=None)
    cells = phase1(table, [0, 1, 2], 3)
    got = table.decode().iloc[np.argsort(table.origin)].reset_index(drop=True).fillna("")
    expected = _expected(case / "expected_after_phase1.csv")
    assert cells == 7
    for c in WALK:
        assert got[c].tolist() == expected[c].tolist(), c


def test_walkthrough_final_matches_figure_7(conformance_dir) -> None:
    case = conformance_dir / "walkthrough_k3"
    data = pd.read_csv(case / "input.csv", dtype=str)
    result = run_suppression(data, 3, [WALK], count_column=None)
    got = _records(result).fillna("")
    expected = _expected(case / "expected_after_phase2.csv")
    for c in WALK:
        assert got[c].tolist() == expected[c].tolist(), c
    assert result.stats.cells == 18
    assert int((got[WALK] == "").any(axis=1).sum()) == 9
    assert (got["sex"] != "").all()


TABLE6 = pd.DataFrame(
    {
        "prov_all": ["ON"] * 4,
        "age_group": ["50-59"] * 4,
        "gender_code": ["M"] * 4,
        "mrdx": ["B022", "B022", "C793", "C793"],
        "cmg_code": ["013", "033", "013", "033"],
    }
)
T6_COMBOS = [
    ["prov_all", "age_group", "gender_code", "mrdx"],
    ["prov_all", "age_group", "gender_code", "cmg_code"],
]


def test_table6_combinations_suppresses_nothing() -> None:
    result = run_suppression(TABLE6, 2, T6_COMBOS, count_column=None)
    assert result.stats.cells == 0
    assert _records(result)[list(TABLE6.columns)].notna().all().all()


def test_table6_complete_suppresses_four_cells_in_one_column() -> None:
    result = run_suppression(TABLE6, 2, T6_COMBOS, count_column=None, algorithm="complete")
    got = _records(result)
    assert result.stats.cells == 4
    nulls = got.isna().sum()
    assert sorted(nulls[nulls > 0].items()) in ([("mrdx", 4)], [("cmg_code", 4)])
    assert all(c.ok for c in verify_result(result))


def test_table6_from_shared_file(conformance_dir) -> None:
    data = pd.read_csv(conformance_dir / "combinations_vs_complete_k2" / "input.csv", dtype=str)
    assert run_suppression(data, 2, T6_COMBOS, count_column=None).stats.cells == 0
    complete = run_suppression(data, 2, T6_COMBOS, count_column=None, algorithm="complete")
    assert complete.stats.cells == 4


def test_fully_suppressed_class_is_grown_to_k() -> None:
    # Phase 1 suppresses the two singleton records entirely: a fully suppressed class of 2 < k.
    data = pd.DataFrame(
        {"a": ["x"] * 5 + ["y"] * 5 + ["p", "q"], "b": ["1"] * 5 + ["2"] * 5 + ["8", "9"]}
    )
    result = run_suppression(data, 3, [["a", "b"]], count_column=None)
    got = _records(result)
    full = got[["a", "b"]].isna().all(axis=1)
    assert int(full.sum()) == 3
    assert result.stats.growth_records == 1
    assert smallest_class(got, ["a", "b"]) >= 3
    assert smallest_consistent_set(data, got, ["a", "b"]) >= 3


def _random_frame(rng: np.random.Generator, n: int, cards: list[int]) -> pd.DataFrame:
    cols = {}
    for j, card in enumerate(cards):
        p = rng.dirichlet(np.full(card, 0.6))
        cols[f"q{j}"] = rng.choice([f"v{j}_{i}" for i in range(card)], size=n, p=p)
    return pd.DataFrame(cols)


@pytest.mark.parametrize("seed", range(25))
def test_guarantee_holds_on_random_overlapping_combinations(seed: int) -> None:
    """Every combination reaches k, by class and by exact consistent count (sdcMicro #352)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(30, 200))
    cards = [int(c) for c in rng.integers(2, 9, size=5)]
    data = _random_frame(rng, n, cards)
    cols = list(data.columns)
    combos = [list(rng.choice(cols, size=int(rng.integers(2, 5)), replace=False))
              for _ in range(int(rng.integers(1, 4)))]
    k = int(rng.integers(2, 6))
    weights = {c: float(rng.uniform(0.2, 1.0)) for c in cols}
    algorithm = "complete" if seed % 5 == 0 else "combinations"
    result = run_suppression(data, k, combos, weights, count_column=None, algorithm=algorithm)
    got = _records(result)
    assert len(got) == n
    for b in result.combinations:
        assert smallest_class(got, b) >= k
        assert smallest_consistent_set(data, got, b) >= k
    # Released values are the true values or suppressed, never anything else.
    for c in result.table.columns:
        kept = got[c].notna()
        assert (got.loc[kept, c] == data.loc[kept, c]).all()


def test_pattern_table_input_gives_the_same_guarantee() -> None:
    rng = np.random.default_rng(3)
    data = _random_frame(rng, 400, [3, 4, 6, 5])
    combos = [["q0", "q1", "q2"], ["q1", "q2", "q3"], ["q0", "q3"]]
    patterns = data.value_counts().reset_index(name="n")
    result = run_suppression(patterns, 4, combos)
    assert result.input_table.n_records == 400
    checks = verify_result(result)
    assert all(c.ok for c in checks), checks
    assert int(result.table.counts.sum()) == 400


def test_suppression_map_reconstructs_the_records() -> None:
    """Apply the map the way SQL does (rank records inside a pattern) and compare."""
    rng = np.random.default_rng(11)
    data = _random_frame(rng, 300, [2, 3, 7, 4])
    data["rid"] = np.arange(len(data))
    cols = ["q0", "q1", "q2", "q3"]
    combos = [["q0", "q1", "q2"], ["q2", "q3"]]
    patterns = data[cols].value_counts().reset_index(name="n")
    result = run_suppression(patterns, 5, combos)
    smap = result.suppression_map()
    assert ((smap["rank_to"] - smap["rank_from"] + 1) == smap["n"]).all()
    ranked = data.sort_values("rid").copy()
    ranked["rank"] = ranked.groupby(cols).cumcount() + 1
    merged = ranked.merge(smap, on=cols, how="left")
    in_range = merged["rank"].between(merged["rank_from"], merged["rank_to"])
    hit = merged["rank_from"].isna() | in_range
    merged = merged[hit].drop_duplicates("rid").sort_values("rid")
    assert len(merged) == len(data)
    released = merged[cols].copy()
    for c in cols:
        flag = merged[f"{c}__suppressed"].fillna(False).astype(bool).to_numpy()
        released.loc[flag, c] = None
    released = released.reset_index(drop=True)
    truth = data[cols].reset_index(drop=True)
    for b in combos:
        assert smallest_class(released, b) >= 5
        assert smallest_consistent_set(truth, released, b) >= 5
    assert int(released.isna().sum().sum()) == result.stats.cells


def test_weight_orders_suppression() -> None:
    """wsup = sup x w: the column with the lower weight has its values suppressed first."""
    data = pd.DataFrame(
        {"a": ["x"] * 3 + ["y"] * 6 + ["x", "x"],
         "b": ["p"] * 3 + ["q"] * 3 + ["r"] * 3 + ["q", "r"]}
    )
    protect_a = _records(run_suppression(data, 2, [["a", "b"]], {"a": 1.0, "b": 0.1},
                                         count_column=None))
    protect_b = _records(run_suppression(data, 2, [["a", "b"]], {"a": 0.1, "b": 1.0},
                                         count_column=None))
    assert protect_a["a"].notna().all()
    assert int(protect_a["b"].isna().sum()) == 2
    assert int(protect_b["a"].isna().sum()) == 2


def test_verify_matches_independent_check() -> None:
    rng = np.random.default_rng(5)
    truth = _random_frame(rng, 150, [3, 3, 4])
    published = truth.copy()
    mask = rng.random(published.shape) < 0.3
    published = published.mask(mask)
    b = ["q0", "q1", "q2"]
    exact = exact_consistent_counts(truth, published, b)
    assert int(exact.min()) == smallest_consistent_set(truth, published, b)
    check = check_release(truth, published, [b], 3)[0]
    assert check.smallest_class == smallest_class(published, b)


def test_wildcard_matching_tools_would_misreport() -> None:
    """Counting a suppressed cell as matching other records' released values can report
    k-anonymity while a record stays unique on its true values; the exact count sees it."""
    truth = pd.DataFrame({"a": ["x", "x", "y"], "b": ["1", "1", "2"]})
    published = pd.DataFrame({"a": ["x", "x", None], "b": ["1", "1", "2"]})
    # A wildcard-matching tool counts record 3 as matching records 1-2 on `a` ... but its true
    # value `b = 2` is consistent with only itself.
    assert smallest_consistent_set(truth, published, ["a", "b"]) == 1
    assert int(exact_consistent_counts(truth, published, ["a", "b"]).min()) == 1
    assert check_release(truth, published, [["a", "b"]], 2)[0].ok is False


def test_release_does_not_depend_on_the_pattern_table_row_order() -> None:
    """The warehouse returns GROUP BY rows in any order; the suppression must not change."""
    rng = np.random.default_rng(21)
    data = _random_frame(rng, 500, [3, 5, 8, 4])
    combos = [["q0", "q1", "q2"], ["q1", "q3"]]
    patterns = data.value_counts().reset_index(name="n")
    a = run_suppression(patterns, 5, combos).suppression_map()
    shuffled = patterns.sample(frac=1.0, random_state=3).reset_index(drop=True)
    b = run_suppression(shuffled, 5, combos).suppression_map()
    cols = ["q0", "q1", "q2", "q3"]
    key = [*cols, "rank_from"]
    pd.testing.assert_frame_equal(
        a.drop(columns="pattern_index").sort_values(key).reset_index(drop=True),
        b.drop(columns="pattern_index").sort_values(key).reset_index(drop=True),
    )


def test_adult_release_holds_the_guarantee(adult_dir) -> None:
    data = pd.read_csv(adult_dir / "adult.csv", sep=";", dtype=str)
    combos = [["sex", "age", "race", "marital-status"], ["age", "education", "native-country"],
              ["workclass", "occupation", "age", "sex"]]
    patterns = data.value_counts().reset_index(name="n")
    for algorithm in ("combinations", "complete"):
        result = run_suppression(patterns, 5, combos, algorithm=algorithm)
        assert all(c.ok for c in verify_result(result)), algorithm
        assert int(result.table.counts.sum()) == len(data)
    comb = run_suppression(patterns, 5, combos)
    complete = run_suppression(patterns, 5, combos, algorithm="complete")
    assert comb.stats.cells < complete.stats.cells


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"k": 1}, ConfigError, "k must be an integer >= 2"),
        ({"combinations": [["a", "zip"]]}, ConfigError, "unknown column(s) ['zip']"),
        ({"combinations": []}, ConfigError, "non-empty"),
        ({"weights": {"a": 1.5}}, ConfigError, "weight of 'a'"),
        ({"k": 50}, DataError, "fewer than k = 50"),
    ],
)
def test_bad_input(kwargs: dict, error: type, message: str) -> None:
    data = pd.DataFrame({"a": list("xxyy"), "b": list("1212")})
    args = {"k": 2, "combinations": [["a", "b"]], "weights": None, **kwargs}
    with pytest.raises(error) as err:
        run_suppression(data, args["k"], args["combinations"], args["weights"], count_column=None)
    assert message in str(err.value)


def test_empty_pattern_table_is_an_error() -> None:
    with pytest.raises(DataError, match="empty"):
        run_suppression(pd.DataFrame({"a": [], "n": []}), 2, [["a"]])


@pytest.mark.parametrize(
    ("values", "k"),
    [(list("aaaba"), 3), (["a"] * 6 + ["b"], 4), (["a"] * 5 + ["b"] * 2, 4)],
)
def test_growth_takes_the_rest_of_a_class_that_already_gave_records(values, k) -> None:
    """Issue 13 item 3: the rare value is suppressed in phase 1 (a fully suppressed class of
    one or two); the big class can give only its surplus over k, which is not enough, so the
    whole class must go too. The release exists (everything suppressed) and must be found."""
    data = pd.DataFrame({"a": values})
    result = run_suppression(data, k, [["a"]], count_column=None)
    got = _records(result)
    assert len(got) == len(values)
    assert smallest_class(got, ["a"]) >= k
    assert smallest_consistent_set(data, got, ["a"]) >= k
    assert all(c.ok for c in verify_result(result))


def _tiny_states():
    """Every pattern table over two QIs (a in {*, x, y}, b in {*, x}; * = suppressed) with at
    most 3 records per pattern, 2 to 9 records and a non-empty fully suppressed class."""
    tuples = [(a, b) for a in (-1, 0, 1) for b in (-1, 0)]
    for counts in itertools.product(range(4), repeat=len(tuples)):
        if counts[0] and 2 <= sum(counts) <= 9:
            yield [(t, c) for t, c in zip(tuples, counts, strict=True) if c]


def _feasible_by_search(sizes: list[int], full: int, k: int) -> bool:
    """Exhaustive search: is there a number of records to take from each class so that the
    fully suppressed class reaches k and no class of k or more is left between 1 and k - 1?"""
    others = [c for c in range(len(sizes)) if c != full and sizes[c] > 0]
    for take in itertools.product(*[range(sizes[c] + 1) for c in others]):
        if sizes[full] + sum(take) < k:
            continue
        if not any(sizes[c] >= k and 0 < sizes[c] - t < k
                   for c, t in zip(others, take, strict=True)):
            return True
    return False


def test_growth_of_the_fully_suppressed_class_against_exhaustive_search() -> None:
    """On every tiny state the growth succeeds exactly when a valid growth exists (whenever
    the table has k records), and its result keeps the guarantee: the fully suppressed class
    reaches k, no class of k or more drops below k (unless emptied), no record is lost, and
    the records moved are fully suppressed. When the surpluses over k of the other classes
    cover the need, exactly the missing records are moved."""
    cases = 0
    for rows in _tiny_states():
        n_records = sum(c for _, c in rows)
        for k in range(2, n_records + 2):
            table = PatternTable(
                ["a", "b"], np.array([t for t, _ in rows], dtype=np.int32),
                np.array([c for _, c in rows], dtype=np.int64),
                [np.array(["x", "y"], dtype=object), np.array(["x"], dtype=object)],
                np.arange(len(rows), dtype=np.int64),
            )
            idx = _ClassIndex(table, np.array([0, 1]), 0)
            full = idx.cid_of_key(0)
            sizes = idx.size[: idx.n_classes].tolist()
            if sizes[full] >= k:
                continue
            cases += 1
            feasible = _feasible_by_search(sizes, full, k)
            assert feasible == (n_records >= k)
            if not feasible:
                with pytest.raises(DataError, match="cannot reach k"):
                    _grow_fully_suppressed(table, idx, k)
                continue
            moved, _cells = _grow_fully_suppressed(table, idx, k)
            assert int(table.counts.sum()) == n_records
            fully = (table.codes == -1).all(axis=1)
            assert int(table.counts[fully].sum()) == sizes[full] + moved >= k
            before = {t: c for t, c in rows}
            now: dict[tuple[int, int], int] = {}
            for code, n in zip(map(tuple, table.codes.tolist()), table.counts.tolist(),
                               strict=True):
                now[code] = now.get(code, 0) + n
            for t, c in before.items():
                if t != (-1, -1) and c >= k:
                    assert now.get(t, 0) == 0 or now[t] >= k, (rows, k)
            surplus = sum(max(c - k, 0) for t, c in before.items() if t != (-1, -1))
            if surplus >= k - sizes[full]:
                assert moved == k - sizes[full]
    assert cases > 5000


@pytest.mark.parametrize("k", range(2, 8))
def test_no_false_refusal_on_any_tiny_table(k: int) -> None:
    """Every table of up to 7 records over one or two QIs (values a, b, c): when it has k
    records the release is found and holds the guarantee (issue 13 item 3)."""
    for n in range(k, 8):
        for values in itertools.combinations_with_replacement(["a", "b", "c"], n):
            for data in (pd.DataFrame({"q": list(values)}),
                         pd.DataFrame({"q": list(values), "r": list(reversed(values))})):
                result = run_suppression(data, k, [list(data.columns)], count_column=None)
                assert all(c.ok for c in verify_result(result)), (values, k)


def test_record_key_makes_record_mode_independent_of_row_order() -> None:
    """Issue 13 item 6: records sharing their QI values are taken in the order of the record
    key, so a shuffled record table suppresses the same cells of the same records."""
    rng = np.random.default_rng(8)
    data = _random_frame(rng, 120, [2, 3, 4])
    data["rid"] = [f"r{i:03d}" for i in range(len(data))]
    combos = [["q0", "q1"], ["q1", "q2"]]

    def release(frame: pd.DataFrame) -> pd.DataFrame:
        result = run_suppression(frame, 6, combos, count_column=None, record_key="rid")
        got = _records(result)
        got["rid"] = frame["rid"].to_numpy()
        return got.drop(columns="n").sort_values("rid").reset_index(drop=True)

    base = release(data)
    assert base[["q0", "q1", "q2"]].isna().any(axis=1).sum() > 0
    for seed in range(5):
        shuffled = data.sample(frac=1.0, random_state=seed).reset_index(drop=True)
        pd.testing.assert_frame_equal(release(shuffled), base)


def test_record_key_errors() -> None:
    data = pd.DataFrame({"a": list("xxyy"), "rid": ["1", "2", None, "4"]})
    with pytest.raises(ConfigError, match="record_key names unknown column 'id'"):
        run_suppression(data, 2, [["a"]], count_column=None, record_key="id")
    with pytest.raises(DataError, match="'rid' has 1 missing"):
        run_suppression(data, 2, [["a"]], count_column=None, record_key="rid")
    table = PatternTable.from_frame(data, ["a"], None)
    with pytest.raises(ConfigError, match="record_key needs a frame"):
        run_suppression(table, 2, [["a"]], record_key="rid")


def test_internal_column_names_never_overwrite_a_quasi_identifier() -> None:
    """Issue 13 item 4 in the core: a QI named like a column the map or the published frame
    adds (``n``, ``rank_from``, ``<qi>__suppressed``) is an error, never overwritten."""
    data = pd.DataFrame({"a": list("xxxy"), "n": list("1112")})
    with pytest.raises(ConfigError, match=r"\['n'\]"):
        run_suppression(data, 2, [["a", "n"]], count_column=None).published()
    with pytest.raises(ConfigError, match="count column"):
        run_suppression(data.assign(c=1), 2, [["a", "n"]], count_column="n")
    clash = pd.DataFrame({"a": list("xxxy"), "a__suppressed": list("1112"), "c": 1})
    with pytest.raises(ConfigError, match="a__suppressed"):
        run_suppression(clash, 2, [["a", "a__suppressed"]], count_column="c").suppression_map()


def test_dbt_map_does_not_depend_on_the_pattern_table_row_order() -> None:
    """Issue 13 item 6 on the dbt path: deid_suppression_map from deid_patterns in any row
    order is the same map (the SQL then ranks the records of a pattern by record id)."""
    from dbt_deid.dbt_side.entry import suppression_map

    class _Quiet:
        def info(self, msg: str) -> None:
            pass

    rng = np.random.default_rng(4)
    data = _random_frame(rng, 400, [3, 4, 6, 3])
    patterns = data.value_counts().reset_index(name="n")
    release = {"source": "src", "record_id": "id", "k": 5, "max_suppression": 1.0,
               "quasi_identifiers": {c: {} for c in data.columns},
               "combinations": [["q0", "q1", "q2"], ["q1", "q3"], ["q2", "q3", "q0"]]}
    maps = []
    for seed in range(4):
        shuffled = patterns.sample(frac=1.0, random_state=seed).reset_index(drop=True)
        out = suppression_map(shuffled, release, logger=_Quiet())
        maps.append(out.sort_values([*data.columns, "rank_from"]).reset_index(drop=True))
    assert len(maps[0]) > 0 and maps[0][[f"{c}__suppressed" for c in data.columns]].any().any()
    for other in maps[1:]:
        pd.testing.assert_frame_equal(other, maps[0])


@pytest.mark.parametrize("card", [3, 2**20])  # int64 class keys, and Python-integer keys
def test_count_moles_matches_a_group_by_for_both_key_widths(card: int) -> None:
    """M_b (classes below k and their records) as pandas counts it, suppressed cells (-1) a
    category of their own; with 2**20 labels per column the mixed-radix keys pass int64."""
    rng = np.random.default_rng(5)
    codes = rng.integers(-1, 3, size=(400, 4)).astype(np.int32)
    counts = rng.integers(1, 4, size=400).astype(np.int64)
    labels = [np.array([f"v{i}" for i in range(card)], dtype=object)] * 4
    table = PatternTable(["a", "b", "c", "d"], codes, counts, labels, np.arange(400))
    for cols, k in (([0, 1], 5), ([0, 1, 2, 3], 4), ([2], 200)):
        sizes = pd.DataFrame(codes[:, cols]).assign(n=counts).groupby(
            list(range(len(cols))))["n"].sum()
        small = sizes[sizes < k]
        assert count_moles(table, cols, k) == (len(small), int(small.sum()))

