"""Disclosing all hierarchy levels (El Emam et al. 2011 Tables 4, 5, 7, 8) and propagation."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dbt_deid.comparison import compare_algorithms
from dbt_deid.config import parse_release
from dbt_deid.errors import ConfigError, DataError
from dbt_deid.families import generate_combinations, parse_family
from dbt_deid.suppression import run_suppression
from tests.independent_check import smallest_class, smallest_consistent_set

QIS = ["prov", "age", "gender", "mrdx", "cmg", "block", "chapter", "cci", "short_cci"]
DIAG = {"levels": ["mrdx", "cmg", "block", "chapter"],
        "generalizes": {"block": "mrdx", "chapter": "block"}}
INTV = {"levels": ["cci", "short_cci"], "generalizes": {"short_cci": "cci"}}


def test_table8_adversary_at_cmg_and_short_cci() -> None:
    diag = parse_family("diagnosis", {**DIAG, "adversary_level": "cmg"}, QIS)
    intv = parse_family("intervention", {**INTV, "adversary_level": "short_cci"}, QIS)
    combos = generate_combinations(["prov", "age", "gender"], [diag, intv])
    assert combos == [("prov", "age", "gender", "cmg", "short_cci"),
                      ("prov", "age", "gender", "block", "short_cci")]  # 2f, 2g
    assert diag.released == ("mrdx", "cmg", "block", "chapter")  # M = 0 < Q: all levels


def test_table7_every_level_evaluated() -> None:
    diag = parse_family("diagnosis", {**DIAG, "evaluate_all_levels": True}, QIS)
    intv = parse_family("intervention", {**INTV, "evaluate_all_levels": True}, QIS)
    combos = generate_combinations(["prov", "age", "gender"], [diag, intv])
    assert len(combos) == 8  # 2a..2h
    assert {c[3] for c in combos} == {"mrdx", "cmg", "block", "chapter"}


def test_table4_analysts_coarser_than_adversary() -> None:
    """M >= Q: suppress at M, release only M (and coarser levels)."""
    fam = parse_family("diagnosis", {**DIAG, "adversary_level": "cmg", "analyst_level": "block"},
                       QIS)
    assert fam.suppression_rank == 2
    assert fam.released == ("block", "chapter")
    assert fam.evaluated == ("block",)
    used = [q for q in QIS if q not in INTV["levels"]]  # a declared QI must be protected
    cfg = parse_release({**COMPLETE, "quasi_identifiers": {q: {} for q in used}, "tau": 0.2,
                         "demographics": ["prov", "age", "gender"],
                         "hierarchical_qis": {"diagnosis": {**DIAG, "adversary_level": "cmg",
                                                            "analyst_level": "block"}}})
    assert "mrdx" not in cfg.released_qis() and "cmg" not in cfg.released_qis()


def test_family_settings_are_validated() -> None:
    with pytest.raises(ConfigError, match="levels names unknown quasi-identifier 'zip'"):
        parse_family("d", {"levels": ["mrdx", "zip"]}, QIS)
    with pytest.raises(ConfigError, match="must be coarser"):
        parse_family("d", {"levels": ["mrdx", "block"], "generalizes": {"mrdx": "block"}}, QIS)
    with pytest.raises(ConfigError, match="adversary_level names unknown level"):
        parse_family("d", {**DIAG, "adversary_level": "short_cci"}, QIS)


def _hierarchical_data(rng: np.random.Generator, n: int) -> pd.DataFrame:
    """MRDx -> block -> chapter nest; CMG depends on block and age (not a function of MRDx)."""
    mrdx = rng.choice([f"M{i:03d}" for i in range(60)], size=n, p=rng.dirichlet(np.ones(60) * 0.5))
    block = np.array([f"B{int(m[1:]) // 6}" for m in mrdx])
    chapter = np.array([f"C{int(b[1:]) // 3}" for b in block])
    age = rng.choice(["0-19", "20-39", "40-59", "60+"], size=n)
    cmg = np.array([f"G{(int(b[1:]) * 3 + len(a)) % 7}" for b, a in zip(block, age, strict=True)])
    cci = rng.choice([f"I{i:02d}" for i in range(20)], size=n)
    return pd.DataFrame({
        "prov": rng.choice(["E", "W", "C"], size=n), "age": age,
        "gender": rng.choice(["F", "M"], size=n), "mrdx": mrdx, "cmg": cmg, "block": block,
        "chapter": chapter, "cci": cci, "short_cci": [c[:2] for c in cci],
    })


# What every dbt release also gives (source, record id, MaxSup), irrelevant to these tests.
COMPLETE = {"source": "src", "record_id": "id", "max_suppression": 1.0}


def _release(**extra) -> dict:
    return {**COMPLETE, "quasi_identifiers": {q: {} for q in QIS}, "tau": 0.2,
            "demographics": ["prov", "age", "gender"],
            "hierarchical_qis": {"diagnosis": {**DIAG, "adversary_level": "cmg"},
                                 "intervention": {**INTV, "adversary_level": "short_cci"}},
            **extra}


@pytest.mark.parametrize("seed", range(8))
def test_propagation_keeps_every_verified_combination_at_k(seed: int) -> None:
    data = _hierarchical_data(np.random.default_rng(seed), 600)
    cfg = parse_release(_release())
    result = run_suppression(
        data, cfg.k, cfg.combinations, count_column=None, propagation=cfg.propagation(),
        columns=cfg.qi_names, verify_combinations=cfg.verified_combinations(),
        families=cfg.families,
    )
    order = np.argsort(result.table.origin, kind="stable")
    got = result.published().iloc[order].reset_index(drop=True)
    assert ("prov", "age", "gender", "chapter", "short_cci") in cfg.verified_combinations()
    for b in cfg.verified_combinations():
        assert smallest_class(got, b) >= cfg.k, b
        assert smallest_consistent_set(data, got, b) >= cfg.k, b
    # Propagation: block suppressed -> chapter and mrdx suppressed; cmg -> mrdx; short -> cci.
    for src, dst in (("block", "chapter"), ("block", "mrdx"), ("cmg", "mrdx"),
                     ("short_cci", "cci")):
        assert got.loc[got[src].isna(), dst].isna().all(), (src, dst)
    assert result.stats.propagated_cells > 0


def test_generalization_that_is_not_a_total_order_is_an_error() -> None:
    data = _hierarchical_data(np.random.default_rng(1), 200)
    data.loc[0, "chapter"] = "C_other"  # block B? now maps to two chapters
    cfg = parse_release(_release())
    with pytest.raises(DataError, match="does not generalize 'block' in a total order"):
        run_suppression(data, cfg.k, cfg.combinations, count_column=None,
                        propagation=cfg.propagation(), columns=cfg.qi_names,
                        families=cfg.families)


def test_comparison_reports_both_algorithms_at_k() -> None:
    data = _hierarchical_data(np.random.default_rng(4), 3000)
    patterns = data.value_counts().reset_index(name="n")
    table = compare_algorithms(patterns, _release())
    total = table[table["column_name"] == "(all quasi-identifiers)"].set_index("algorithm")
    assert set(total.index) == {"combinations", "complete"}
    assert (total["smallest_class"] >= 5).all() and (total["min_consistent_exact"] >= 5).all()
    assert total.loc["combinations", "selected"] and not total.loc["complete", "selected"]
    assert total.loc["combinations", "suppressed_cells"] <= total.loc["complete",
                                                                        "suppressed_cells"]


def _released_patterns(patterns: pd.DataFrame) -> pd.DataFrame:
    """The release's result as deid_suppressed_patterns holds it: released values, the true
    values as ``<qi>__generalized`` and the record count ``n``."""
    cfg = parse_release(_release())
    result = run_suppression(patterns, cfg.k, cfg.combinations, cfg.weights,
                             propagation=cfg.propagation(), columns=cfg.qi_names,
                             verify_combinations=cfg.verified_combinations(),
                             families=cfg.families)
    pub = result.published()
    truth = result.input_table.decode().iloc[result.input_table.rows_of(result.table.origin)]
    released = pub[cfg.qi_names].reset_index(drop=True)
    for q in cfg.qi_names:
        released[f"{q}__generalized"] = truth[q].to_numpy()
    released["n"] = result.table.counts
    return released


def test_comparison_reads_the_selected_algorithm_from_the_released_patterns() -> None:
    """The selected algorithm's figures from deid_suppressed_patterns (released and true values
    with counts) equal those of running it again on the pattern table."""
    data = _hierarchical_data(np.random.default_rng(5), 3000)
    patterns = data.value_counts().reset_index(name="n")
    released = _released_patterns(patterns)
    rerun = compare_algorithms(patterns, _release())
    read = compare_algorithms(patterns, _release(), released=released)
    pd.testing.assert_frame_equal(rerun, read, check_dtype=False)
    with pytest.raises(DataError, match="deid_suppressed_patterns"):
        compare_algorithms(patterns, _release(), released=released.drop(columns=["n"]))


def test_model_glue_encodes_first_and_gives_the_same_comparison() -> None:
    """deid_algorithm_comparison's glue codes the released patterns and encodes the pattern
    table itself (carried_columns), dropping the frames of text before the run; its table must
    equal compare_algorithms on the frames."""
    from dbt_deid.dbt_side.glue.release import algorithm_comparison

    data = _hierarchical_data(np.random.default_rng(6), 3000)
    patterns = data.value_counts().reset_index(name="n")
    released = _released_patterns(patterns)
    expected = compare_algorithms(patterns, _release(), released=released)
    got = algorithm_comparison(patterns.copy(), _release(), released.copy())
    pd.testing.assert_frame_equal(got, expected, check_dtype=False)


def test_duckdb_relations_give_the_same_map_and_comparison_as_frames() -> None:
    """The suppression map and the comparison read a DuckDB relation's text columns in their
    Arrow buffers (to_pandas_for_codes); the results must equal those from pandas frames."""
    import duckdb

    from dbt_deid.dbt_side.glue.release import algorithm_comparison, suppression_map

    data = _hierarchical_data(np.random.default_rng(7), 3000)
    patterns = data.value_counts().reset_index(name="n")
    patterns.loc[patterns.index[:3], "gender"] = None  # a missing value in the patterns
    con = duckdb.connect()
    con.register("patterns_frame", patterns)
    relation = con.sql("select * from patterns_frame")
    expected_map = suppression_map(patterns.copy(), _release())
    got_map = suppression_map(relation, _release())
    pd.testing.assert_frame_equal(got_map, expected_map)
    pd.testing.assert_frame_equal(algorithm_comparison(relation, _release()),
                                  algorithm_comparison(patterns.copy(), _release()))
