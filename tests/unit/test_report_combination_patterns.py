"""The report measures each combination on its own collapsed pattern table
(:func:`dbt_deid.dbt_side.glue.risk.combination_patterns`): every figure must equal the figure
measured on
the full pattern table, which is what the report measured before (El Emam et al. 2011,
discharge PUMF, equations 1-3: all of them depend only on how many records have each pair of
released and true tuples of the combination)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from dbt_deid.dbt_side.glue.risk import combination_patterns
from dbt_deid.report.html import render_release_report
from dbt_deid.risk import assess_release

QIS = ["a", "b", "c", "d"]


def pattern_table(seed: int, rows: int = 400) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A random (published, truth) pattern table: true values from small domains, about a
    fifth of the cells suppressed (None), record counts 1-6; a true value may be the missing
    label, never null."""
    rng = np.random.default_rng(seed)
    truth = pd.DataFrame({q: rng.choice(["x", "y", "z", "<missing>"][: 2 + i % 3], rows)
                          for i, q in enumerate(QIS)}).astype("string")
    published = truth.copy()
    for q in QIS:
        published.loc[rng.random(rows) < 0.2, q] = pd.NA
    published["n"] = rng.integers(1, 7, rows).astype("int64")
    return published, truth


def figures(a) -> dict:
    """The assessment's figures; floats rounded to 12 digits (sums in another order)."""
    p = a.prosecutor
    stats = {k: round(v, 12) for k, v in dataclasses.asdict(p.stats).items()}
    exact = {k: round(v, 12) for k, v in dataclasses.asdict(p.exact).items()}
    return {
        "records": p.n_records, "classes": p.n_classes, "stats": stats, "exact": exact,
        "cdf": a.cdf.round(12).to_dict("list"), "exact_cdf": a.exact_cdf.round(12).to_dict("list"),
        "histogram": a.histogram.to_dict("list"), "suppression": a.suppression.to_dict("list"),
        "loss": a.information_loss,
    }


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("combo", [["a", "b"], ["b", "c", "d"], QIS])
def test_collapsed_combination_gives_the_full_tables_figures(seed, combo):
    published, truth = pattern_table(seed)
    full = assess_release(published, combo, 0.2, count_column="n", true_values=truth)
    pub_c, truth_c = combination_patterns(published, truth, combo)
    assert len(pub_c) < len(published)
    assert int(pub_c["n"].sum()) == int(published["n"].sum())
    collapsed = assess_release(pub_c, combo, 0.2, count_column="n", true_values=truth_c)
    assert figures(collapsed) == figures(full)


def test_collapse_keeps_suppressed_cells_apart_from_values():
    published = pd.DataFrame({"a": ["x", None, "x", None], "b": ["y", "y", "y", "y"],
                              "n": [1, 2, 3, 4]}).astype({"a": "string", "b": "string"})
    truth = pd.DataFrame({"a": ["x", "x", "x", "x"], "b": ["y", "y", "y", "y"]})
    pub, true = combination_patterns(published, truth, ["a", "b"])
    assert pub["n"].tolist() == [4, 6]
    assert pub["a"].isna().tolist() == [False, True]
    assert true["a"].tolist() == ["x", "x"]


def test_record_level_input_counts_each_row_once():
    published = pd.DataFrame({"a": ["x", "x", None]}, dtype="string")
    truth = pd.DataFrame({"a": ["x", "x", "x"]})
    pub, _ = combination_patterns(published, truth, ["a"])
    assert pub["n"].tolist() == [2, 1]


def test_report_ends_with_the_algorithm_comparison():
    published, truth = pattern_table(0)
    a = assess_release(published, ["a", "b"], 0.2, count_column="n", true_values=truth)
    comparison = pd.DataFrame({
        "algorithm": ["combinations", "complete"], "column_name": ["(all)", "(all)"],
        "suppressed_cells": [12, 30], "share_cells_suppressed": [0.01, 0.025],
        "records_with_suppression": [10, 20], "share_records_with_suppression": [0.1, 0.2],
        "suppression_entropy": [1.5, 3.0], "smallest_class": [5, 5],
        "min_consistent_exact": [None, None], "selected": [True, False]})
    text = render_release_report([a], title="t", comparison=comparison)
    assert "Suppression algorithms compared" in text
    assert text.index("Suppression algorithms compared") > text.index("Overview")
    assert "complete" in text and "2.50%" in text
    assert "Suppression algorithms compared" not in render_release_report([a], title="t")


def test_report_says_when_the_comparison_was_not_requested():
    """A release without ``report.algorithm_comparison: true`` (deid_algorithm_comparison not
    built): the report's last section says the comparison was not requested and how to ask
    for it, rather than leaving the section out without a word."""
    published, truth = pattern_table(1)
    a = assess_release(published, ["a", "b"], 0.2, count_column="n", true_values=truth)
    text = render_release_report([a], title="t", comparison_requested=False)
    assert "Suppression algorithms compared" in text
    assert text.index("Suppression algorithms compared") > text.index("Overview")
    assert "Not requested" in text and "report.algorithm_comparison" in text


def test_arrow_backed_input_gives_the_same_tables_as_pandas_input():
    """The report reads its pattern table with the text in Arrow buffers
    (to_pandas_for_codes); the collapsed tables must equal those from to_pandas, dtypes
    included, so every measure sees the same values."""
    import duckdb

    from dbt_deid.dbt_side.glue.frames import to_pandas, to_pandas_for_codes

    published, truth = pattern_table(3)
    frame = published.copy()
    for q in QIS:
        frame[f"{q}__generalized"] = truth[q]
    con = duckdb.connect()
    con.register("suppressed_patterns", frame)
    relation = con.sql("select * from suppressed_patterns")
    for read in (to_pandas, to_pandas_for_codes):
        assert read is to_pandas or any(isinstance(t, pd.ArrowDtype)
                                        for t in read(relation).dtypes)
    results = []
    for read in (to_pandas, to_pandas_for_codes):
        f = read(relation)
        pub = f[QIS + ["n"]]
        true = f[[f"{q}__generalized" for q in QIS]].set_axis(QIS, axis=1)
        results.append(combination_patterns(pub, true, ["a", "c", "d"]))
    for plain, arrow in zip(*results, strict=True):
        pd.testing.assert_frame_equal(arrow, plain)


@pytest.mark.parametrize("seed", range(3))
def test_codes_shared_between_combinations_give_the_same_tables(seed):
    """release_assessments factorizes each column once for every combination (ColumnCodes):
    each combination's table equals the one built with codes of its own."""
    from dbt_deid.dbt_side.glue.risk import ColumnCodes

    published, truth = pattern_table(seed)
    shared = ColumnCodes(published, truth)
    for combo in (["a", "b"], ["b", "c", "d"], QIS, ["d"]):
        own_pub, own_true = combination_patterns(published, truth, combo)
        pub, true = combination_patterns(published, truth, combo, shared)
        pd.testing.assert_frame_equal(pub, own_pub)
        pd.testing.assert_frame_equal(true, own_true)


def exact_distribution(published, truth, combo) -> tuple[np.ndarray, np.ndarray]:
    """The exact check's distribution as exact_distribution_sql reads it: per size of the
    consistent set, the records with that size (from the per-row counts of verify)."""
    from dbt_deid.verify import exact_consistent_counts

    w = published["n"].to_numpy()
    consistent = exact_consistent_counts(truth, published, combo, w)
    frame = pd.DataFrame({"consistent": consistent, "records": w}).groupby("consistent").sum()
    return frame.index.to_numpy(), frame["records"].to_numpy()


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("combo", [["a", "b"], ["b", "c", "d"], QIS])
def test_warehouse_exact_distribution_gives_the_same_figures(seed, combo):
    """Issue 18: the report reads the exact counts the warehouse computed once for the build
    (deid_suppressed_patterns' exact columns) instead of counting them again; every figure is
    unchanged, and the released tuples alone are collapsed (no true values needed)."""
    published, truth = pattern_table(seed)
    full = assess_release(published, combo, 0.2, count_column="n", true_values=truth)
    pub_c, none = combination_patterns(published, None, combo)
    assert none is None
    assert int(pub_c["n"].sum()) == int(published["n"].sum())
    assert not pub_c[combo].duplicated().any()
    given = assess_release(pub_c, combo, 0.2, count_column="n",
                           exact_distribution=exact_distribution(published, truth, combo))
    assert figures(given) == figures(full)


def test_exact_distribution_from_another_build_is_refused():
    from dbt_deid.errors import DataError

    published, truth = pattern_table(0)
    sizes, records = exact_distribution(published, truth, ["a", "b"])
    with pytest.raises(DataError, match="another build"):
        assess_release(published, ["a", "b"], 0.2, count_column="n",
                       exact_distribution=(sizes, records + 1))
    with pytest.raises(DataError, match="consistent with no released record"):
        assess_release(published, ["a", "b"], 0.2, count_column="n",
                       exact_distribution=(np.append(sizes, 0), np.append(records, 0)))
    with pytest.raises(ValueError, match="not both"):
        assess_release(published, ["a", "b"], 0.2, count_column="n", true_values=truth,
                       exact_distribution=(sizes, records))


def test_release_assessments_read_the_exact_table_and_refuse_a_missing_combination():
    """release_assessments with the exact check's distribution: same figures as counting from
    the true values; a combination the table lacks is an error naming the model."""
    from dbt_deid.dbt_side.glue.risk import release_assessments
    from dbt_deid.errors import DataError

    published, truth = pattern_table(3)
    frame = published[QIS].copy()
    for q in QIS:
        frame[f"{q}__generalized"] = truth[q]
    frame["n"] = published["n"]
    release = {"name": "r", "source": "src", "tau": 0.2, "record_id": "id", "max_suppression": 0.5,
               "quasi_identifiers": {q: {"level": 0} for q in QIS},
               "combinations": [["a", "b", "c"], ["b", "c", "d"]]}
    rows = []
    for combo in (["a", "b", "c"], ["b", "c", "d"]):
        sizes, records = exact_distribution(published, truth, combo)
        rows.append(pd.DataFrame({"combination": "+".join(combo), "consistent": sizes,
                                  "records": records}))
    exact = pd.concat(rows, ignore_index=True)
    counted = release_assessments(frame, None, None, release)
    read = release_assessments(frame, None, None, release, exact=exact)
    assert [figures(a) for a in read] == [figures(a) for a in counted]
    with pytest.raises(DataError, match="the exact check has no row for combination b"):
        release_assessments(frame, None, None, release,
                            exact=exact[exact["combination"] == "a+b+c"])


def test_the_exact_columns_of_the_pattern_table_give_the_distribution():
    """Session 13: the exact check is computed once per build as columns of
    deid_suppressed_patterns (deid_consistent_<i> per verified combination, the combinations in
    deid_exact_combinations; the model deid_exact_consistent before). exact_distribution reads
    the same distribution from them as the per-row counts give; columns computed for other
    combinations are refused; a table without them gives None (the report then counts)."""
    import json

    from dbt_deid.config import parse_release
    from dbt_deid.dbt_side.glue.risk import exact_distribution as from_columns
    from dbt_deid.errors import DataError
    from dbt_deid.verify import exact_consistent_counts

    published, truth = pattern_table(4)
    combos = [["a", "b", "c"], ["b", "c", "d"]]
    release = {"name": "r", "source": "src", "tau": 0.2, "record_id": "id", "max_suppression": 0.5,
               "quasi_identifiers": {q: {"level": 0} for q in QIS}, "combinations": combos}
    cfg = parse_release(release)
    frame = published[QIS].copy()
    for q in QIS:
        frame[f"{q}__generalized"] = truth[q]
    frame["n"] = published["n"]
    assert from_columns(frame, cfg) is None
    verified = [list(b) for b in cfg.verified_combinations()]
    w = published["n"].to_numpy()
    for i, combo in enumerate(verified, start=1):
        frame[f"deid_consistent_{i}"] = exact_consistent_counts(truth, published, combo, w)
    frame["deid_exact_combinations"] = json.dumps(verified)
    got = from_columns(frame, cfg)
    for combo in verified:
        sizes, records = exact_distribution(published, truth, combo)
        rows = got[got["combination"] == "+".join(combo)].sort_values("consistent")
        assert rows["consistent"].tolist() == sizes.tolist()
        assert rows["records"].tolist() == records.tolist()
    frame["deid_exact_combinations"] = json.dumps(verified[:1])
    with pytest.raises(DataError, match="computed for other combinations"):
        from_columns(frame, cfg)
