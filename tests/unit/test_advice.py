"""Advice on a refused fixed-level release (issue 35, item 3): the core on a pattern table,
without dbt; the level meanings read from hierarchies; the text and table forms."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dbt_deid.advice import (
    advice_frame,
    advice_lines,
    advise,
    describe_level,
    shares_from_map,
    small_class_shares,
)
from dbt_deid.dbt_side.glue.release import suppression_map
from dbt_deid.suppression import run_suppression


def _patterns(rows: int = 6000, seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    age = rng.integers(0, 95, rows)
    frame = pd.DataFrame({
        "age": age.astype(str),
        "sex": rng.choice(["F", "M"], rows),
        "region": rng.choice([f"r{i:02d}" for i in range(12)], rows,
                             p=np.r_[[0.3, 0.2, 0.1], np.full(9, 0.4 / 9)]),
    })
    return frame.groupby(["age", "sex", "region"], as_index=False).size().rename(
        columns={"size": "n"})


def _age_hierarchy() -> pd.DataFrame:
    values = [str(a) for a in range(95)]

    def band(a: int, w: int) -> str:
        return "90+" if a >= 90 else f"{a // w * w}-{a // w * w + w - 1}"

    return pd.DataFrame({"level0": values, "level1": [band(int(v), 5) for v in values],
                         "level2": [band(int(v), 10) for v in values],
                         "level3": ["*"] * len(values)})


def _region_hierarchy() -> pd.DataFrame:
    values = [f"r{i:02d}" for i in range(12)]
    return pd.DataFrame({"level0": values, "level1": [f"z{int(v[1:]) // 4}" for v in values]})


def _release(max_suppression: float = 0.02, **extra) -> dict:
    return {"name": "t", "k": 10, "max_suppression": max_suppression,
            "quasi_identifiers": {"age": {"level": 0}, "sex": {"level": 0},
                                  "region": {"level": 0}},
            "combinations": [["age", "sex", "region"], ["age", "region"]], **extra}


def _generalize(patterns: pd.DataFrame, levels: dict[str, int]) -> pd.DataFrame:
    out = patterns.copy()
    for q, h in (("age", _age_hierarchy()), ("region", _region_hierarchy())):
        mapping = dict(zip(h["level0"], h[f"level{levels[q]}"], strict=True))
        out[q] = out[q].map(mapping)
    return out.groupby(["age", "sex", "region"], as_index=False)["n"].sum()


def test_refused_release_gets_levels_that_pass_with_its_own_algorithm() -> None:
    patterns = _patterns()
    release = _release()
    advice = advise(patterns, {"age": _age_hierarchy(), "region": _region_hierarchy()}, release)
    assert advice.refused and advice.failing == ("max_suppression",)
    assert advice.shares.share > 0.02
    assert advice.options, advice_lines(advice)
    best = advice.options[0]
    distance = sum(b - a for a, b in best.changes.values())
    # applying the advice: the release's own suppression on the generalized patterns passes
    levels = {"age": 0, "region": 0, **best.levels}
    result = run_suppression(_generalize(patterns, levels), 10,
                             [["age", "sex", "region"], ["age", "region"]], count_column="n")
    t = result.table
    any_sup = (t.codes == -1).any(axis=1)
    assert t.counts[any_sup].sum() / t.counts.sum() <= 0.02
    # nearest: no node at a smaller distance passes
    for a in range(0, 4):
        for r in range(0, 2):
            if 0 < a + r < distance:
                res = run_suppression(_generalize(patterns, {"age": a, "region": r}), 10,
                                      [["age", "sex", "region"], ["age", "region"]],
                                      count_column="n")
                sup = (res.table.codes == -1).any(axis=1)
                assert res.table.counts[sup].sum() / res.table.counts.sum() > 0.02
    lines = advice_lines(advice, {"age": {1: "in bands of 5"}})
    assert lines[0].startswith("release t refused: MaxSup")
    assert any(line.startswith("nearest levels that pass (1)") for line in lines)
    assert any("max_suppression >=" in line for line in lines)
    assert "sex: level not varied (already at its hierarchy's top level)" in lines


def test_passing_release_gets_figures_and_no_search() -> None:
    advice = advise(_patterns(), {"age": _age_hierarchy()}, _release(max_suppression=0.9))
    assert not advice.refused and not advice.searched and not advice.options
    frame = advice_frame(advice)
    assert frame[frame["kind"] == "status"]["message"].iloc[0] == "passes"
    assert set(frame["kind"]) == {"status", "column", "combination", "level", "line"}


def test_column_cap_failure_is_advised() -> None:
    release = _release(max_suppression=1.0, column_suppression_cap={"age": 0.01})
    advice = advise(_patterns(), {"age": _age_hierarchy(), "region": _region_hierarchy()},
                    release)
    assert advice.failing == ("column_suppression_cap",)
    assert advice.options and all(o.shares.column_shares["age"] <= 0.01
                                  for o in advice.options)
    assert any(line.startswith("column age:") for line in advice_lines(advice))


def test_shares_read_from_the_suppression_map_match_a_fresh_run() -> None:
    patterns = _patterns()
    release = {**_release(), "source": "s", "record_id": "id"}
    smap = suppression_map(patterns, release)
    combos = [("age", "sex", "region"), ("age", "region")]
    read = shares_from_map(patterns, smap, ["age", "sex", "region"], combos, 10)
    fresh = advise(patterns, {}, _release()).shares
    assert read.records_with_suppression == fresh.records_with_suppression
    assert read.column_shares == pytest.approx(dict(fresh.column_shares))
    assert read.combination_shares == pytest.approx(dict(fresh.combination_shares))
    small, union = small_class_shares(patterns, combos, 10)
    assert union <= read.share + 1e-12  # the lower bound the search prunes with


def test_budget_stops_the_search_and_says_so() -> None:
    advice = advise(_patterns(), {"age": _age_hierarchy(), "region": _region_hierarchy()},
                    _release(max_suppression=0.0), max_nodes=2)
    assert advice.stopped and "budget" in advice.stopped
    assert any("no coarser levels found" in line for line in advice_lines(advice))


def _long(wide: pd.DataFrame) -> pd.DataFrame:
    rows = [{"level": j, "original_value": o, "generalized_value": g}
            for j in range(wide.shape[1]) for o, g in zip(wide["level0"], wide.iloc[:, j],
                                                           strict=True)]
    return pd.DataFrame(rows)


def test_level_meanings_come_from_the_hierarchy() -> None:
    h = _long(_age_hierarchy())
    assert describe_level(h, 0) == "original values"
    assert describe_level(h, 1) == "in bands of 5, top-coded at 90"
    assert describe_level(h, 2) == "in bands of 10, top-coded at 90"
    assert describe_level(h, 3) == "fully generalized (one value for every record)"
    codes = pd.DataFrame({"level0": ["A001", "A002", "B101"], "level1": ["A00", "A00", "B10"]})
    assert describe_level(_long(codes), 1) == "first 3 characters of the code (2 groups)"
    assert describe_level(_long(_region_hierarchy()), 1) == "3 groups of the 12 original values"
    brackets = pd.DataFrame({"level0": ["3", "14"], "level1": ["[0, 10)", "[10, 20)"]})
    assert describe_level(_long(brackets), 1) == "in bands of 10"


def test_nothing_to_vary_says_so() -> None:
    advice = advise(_patterns(), {}, _release())
    assert advice.refused and not advice.options
    assert ("no coarser levels found that pass (no quasi-identifier has a coarser level to"
            " try)") in advice_lines(advice)


def _long_hierarchy() -> pd.DataFrame:
    """``deid_hierarchy``'s long form of the three QIs (sex: one level)."""
    sex = pd.DataFrame({"level0": ["F", "M"]})
    return pd.concat([_long(w).assign(qi_name=q) for q, w in (
        ("age", _age_hierarchy()), ("region", _region_hierarchy()), ("sex", sex))],
        ignore_index=True)


def _model_case(passes: bool) -> tuple[pd.DataFrame, dict, pd.DataFrame, pd.DataFrame,
                                        pd.DataFrame]:
    """The model tests' release (passing, or refused by MaxSup): its patterns, settings,
    suppression map, hierarchy and the advice the full path gives."""
    from dbt_deid.dbt_side.glue import advice as glue

    patterns = _patterns()
    release = {**_release(max_suppression=0.9 if passes else 0.02,
                          column_suppression_cap={"age": 0.95}),
               "source": "s", "record_id": "id"}
    smap = suppression_map(patterns, release)
    hierarchy = _long_hierarchy()
    full = advice_frame(*glue.release_advice(patterns, hierarchy, smap, release))
    return patterns, release, smap, hierarchy, full


@pytest.mark.parametrize("passes", [True, False])
def test_model_reads_only_counts_and_map_of_a_passing_release(monkeypatch, passes) -> None:
    """Session 12: the dbt model's rows for a passing release come from the suppression map and
    the pattern table's counts (passing_advice), without the pattern values or the hierarchies
    the search reads on a refusal, and are the rows the full path gives; a refused release
    still gets the search. DuckDB relations, as dbt hands them to the model."""
    import json

    import duckdb

    from dbt_deid.dbt_side.glue import advice as glue

    patterns, release, smap, hierarchy, full = _model_case(passes)
    assert (glue.passing_advice(patterns[["n"]], smap, release) is None) is not passes
    if passes:  # neither the QI values nor the hierarchies are read
        def refuse(*_a, **_k):
            raise AssertionError("read on a passing release")
        monkeypatch.setattr(glue, "ola_hierarchies", refuse)
        monkeypatch.setattr(glue, "string_values", refuse)
    con = duckdb.connect()
    con.register("p", patterns)
    con.register("h", hierarchy)
    con.register("m", smap)
    got = glue.release_advice_rows(json.dumps(release), con.table("p"), con.table("h"),
                                   con.table("m"))
    pd.testing.assert_frame_equal(got, full)
    assert ("option" in set(got["kind"])) is not passes


@pytest.mark.parametrize("passes", [True, False])
def test_the_map_model_carries_the_advice_in_inert_rows(passes) -> None:
    """Session 13 (issue 33 item 3): deid_release_advice is folded into deid_suppression_map.
    The model's table is the map, unchanged, then the advice rows, which give back the
    advice the separate model gave (advice_rows, from DuckDB as the publish step, the report
    and `advise` read it) and are inert for the map's readers: no key, n 0, an empty rank
    range, no flag, so the records covered and the cells suppressed are the map's alone."""
    import json

    import duckdb

    from dbt_deid.dbt_side.glue import advice as glue
    from dbt_deid.dbt_side.glue.map_model import deid_suppression_map

    patterns, release, smap, hierarchy, full = _model_case(passes)
    con = duckdb.connect()
    con.register("p", patterns)
    con.register("h", hierarchy)
    table = deid_suppression_map(json.dumps(release), con.table("p"), con.table("h"))
    assert list(table.columns) == [*smap.columns, *glue.ADVICE_MAP_COLUMNS]
    con.register("model_frame", table)
    con.execute("create table m as select * from model_frame")
    own = con.sql("select * exclude (advice__kind, advice__item, advice__subject,"
                  " advice__figure, advice__limit_value, advice__small_share,"
                  " advice__levels_json, advice__message) from m"
                  " where advice__kind is null").df()
    pd.testing.assert_frame_equal(own, smap, check_dtype=False)
    got = glue.advice_rows(con.table("m"))
    pd.testing.assert_frame_equal(got, full)
    assert ("option" in set(got["kind"])) is not passes
    # the advice rows: no key, n 0, rank range 1..0, no flag (the whole-pattern test holds)
    adv = con.sql("select * from m where advice__kind is not null").df()
    assert len(adv) == len(full) > 0
    qis = list(release["quasi_identifiers"])
    assert adv[qis].isna().all().all()
    assert (adv["n"] == 0).all() and (adv["rank_from"] == 1).all() and (adv["rank_to"] == 0).all()
    assert not adv[[f"{q}__suppressed" for q in qis]].any().any()
    # the shares the advice reads from the table are the map's alone
    assert glue.advice_rows(table).equals(got)
    assert glue.advice_rows(smap).empty  # a map without advice columns: no advice


def test_the_map_model_never_fails_for_its_advice(monkeypatch) -> None:
    """The advice never blocks a release (the gates decide): when storing it fails, the map
    model returns the map alone, and its readers find no advice (advice_rows: no row; the
    publish step's message macro and `advise` check the advice columns)."""
    import json

    from dbt_deid.dbt_side.glue import advice as glue
    from dbt_deid.dbt_side.glue import map_model

    patterns = _patterns()
    release = {**_release(max_suppression=0.02), "source": "s", "record_id": "id"}

    def broken(*_a, **_k):
        raise RuntimeError("storage")
    monkeypatch.setattr(map_model, "map_with_advice", broken)
    table = map_model.deid_suppression_map(json.dumps(release), patterns.copy(),
                                           _long_hierarchy())
    pd.testing.assert_frame_equal(table, suppression_map(patterns, release))
    assert glue.advice_rows(table).empty
