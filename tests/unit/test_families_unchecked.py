"""A released hierarchical_qis level that no verified combination checks (review r11, F1 and F2).

El Emam et al. 2011, Table 4: with M < Q the file "can have data at level M ..., except when it
generalizes to a suppressed value at level S = Q": a level finer than the adversary's level is
protected only by the suppression of the checked levels carried to it. Before, the resolver
counted every family level as protected: a coarser sibling over the same column, a finer level
the adversary may know, or a one-level family was published with no check at all (F1: 463 rows
showed the 20-year bin of a suppressed age; 17-21 records below k = 5, smallest 1), and a middle
level over the adversary level's column kept its cell where that level was suppressed (F2: 999
rows, 54 records below k = 5). The settings are the integration project's release
(integration_tests/dbt_project.yml) with the reviewer's changes; no dbt build (the resolver
refuses before dbt).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
import yaml

from dbt_deid import config
from dbt_deid.errors import ConfigError
from dbt_deid.suppression import run_suppression

ROOT = Path(__file__).resolve().parents[2]
BASE: dict[str, Any] = yaml.safe_load(
    (ROOT / "integration_tests" / "dbt_project.yml").read_text())["vars"]["deid_release"]

AGE_20 = {"column": "age", "rule": {"type": "interval", "levels": [{"width": 20, "top_code": 80}]},
          "level": 1}
AGE_5 = {"column": "age", "rule": {"type": "interval", "levels": [{"width": 5, "top_code": 90}]},
         "level": 1}


def _coarse_sibling() -> dict:
    """F1: a 20-year age beside the project's age, one family, in no explicit combination."""
    r = copy.deepcopy(BASE)
    r["quasi_identifiers"]["age2"] = AGE_20
    r["hierarchical_qis"] = {"age_family": {"levels": ["age", "age2"]}}
    return r


def _finer_known_level() -> dict:
    """F1 'fine': 5-year bins as the finest level, linked to age, which the adversary may know
    (adversary_level 0): finer than anything checked."""
    r = copy.deepcopy(BASE)
    r["quasi_identifiers"]["age2"] = AGE_5
    r["hierarchical_qis"] = {"age_family": {"levels": ["age2", "age"],
                                            "generalizes": {"age": "age2"}}}
    return r


def _one_level_family() -> dict:
    """F1b: a one-level family outside every combination."""
    r = copy.deepcopy(BASE)
    r["hierarchical_qis"] = {"dx": {"levels": ["mrdx"]}}
    r["combinations"] = [["age", "gender", "los_days"], ["province", "age", "gender", "cci_code"],
                         ["province", "age", "admission_date"]]
    return r


def _three_ages() -> dict:
    """F2: 5-, 10- and 20-year ages, the adversary knowing the 20-year one; generated
    combinations."""
    r = copy.deepcopy(BASE)
    r["quasi_identifiers"]["age2"] = AGE_5
    r["quasi_identifiers"]["age3"] = AGE_20
    r["hierarchical_qis"] = {"age_family": {"levels": ["age2", "age", "age3"],
                                            "adversary_level": "age3"}}
    r.pop("combinations")
    return r


@pytest.mark.parametrize("settings, name", [
    (_coarse_sibling, "age2"), (_finer_known_level, "age2"), (_one_level_family, "mrdx")])
def test_a_released_family_level_in_no_verified_combination_is_refused(settings, name) -> None:
    """Old code: accepted, verified_combinations without the level (propagation [('age2', 'age')]
    for the coarse sibling, [('age', 'age2')] for the finer one, none for mrdx)."""
    with pytest.raises(ConfigError, match=rf"hierarchical_qis\.\w+: level '{name}' is released"
                       r" but in no verified combination.* Put it in a combination"):
        config.parse_release(settings())


def test_the_refusal_names_the_family_and_the_remedy() -> None:
    with pytest.raises(ConfigError) as err:
        config.parse_release(_coarse_sibling())
    message = str(err.value)
    assert message.startswith("hierarchical_qis.age_family: level 'age2'")
    assert "an adversary may know it" in message and "link it with generalizes" in message
    with pytest.raises(ConfigError, match="no level of the family is in one"):
        config.parse_release(_one_level_family())


def test_a_released_level_over_the_same_column_is_suppressed_with_the_adversary_level() -> None:
    """F2: Table 4 with M < Q: a level between M and Q over Q's own column is suppressed where Q
    is (old code: propagation [('age3', 'age2')] only, age kept the suppressed 20-year bin)."""
    cfg = config.parse_release(_three_ages())
    assert ("age3", "age") in cfg.propagation()
    assert ("age3", "age2") in cfg.propagation()
    assert [c[-1] for c in cfg.verified_combinations()] == ["age3"]
    assert {"age", "age2", "age3"} <= set(cfg.released_qis())


def test_a_coarser_level_linked_as_a_total_order_generalization_is_carried_along() -> None:
    """Table 5: block suppressions are carried to chapter, whose classes are unions of block's;
    with generalizes {age2: age} the 20-year age is suppressed wherever age is (and the link
    is checked as a function of the data), so it needs no combination of its own."""
    r = _coarse_sibling()
    r["hierarchical_qis"]["age_family"]["generalizes"] = {"age2": "age"}
    assert ("age", "age2") in config.parse_release(r).propagation()
    # Table 7 (every level evaluated) carries no suppression upwards through a generalizes
    # link: a coarser level over another column is refused again ...
    r["hierarchical_qis"]["age_family"]["evaluate_all_levels"] = True
    other = copy.deepcopy(r)
    other["quasi_identifiers"]["age2"] = {**AGE_20, "column": "age_band"}
    with pytest.raises(ConfigError, match=r"a suppressed 'age' \(a checked level\) would stay"
                       " readable in it"):
        config.parse_release(other)
    # ... but over age's own column it is suppressed with age whatever the family says
    # (review r11b, F3: before, with evaluate_all_levels, propagation [('age2', 'age')] only)
    assert ("age", "age2") in config.parse_release(r).propagation()


def test_a_level_below_the_adversary_level_must_be_reached_by_every_checked_level() -> None:
    """CMG between MRDx and block, the adversary at block: CMG is not derivable from block or
    chapter (a non-total order), so their suppressions never reach it: refused (before:
    published unchecked). The paper's Table 8 (adversary at CMG) keeps resolving."""
    r = copy.deepcopy(BASE)
    r["quasi_identifiers"].update({
        "cmg": {"level": 0},
        "diag_block": {"column": "mrdx", "hierarchy": "diagnosis_hierarchy", "level": 2},
        "diag_chapter": {"column": "mrdx", "hierarchy": "diagnosis_hierarchy", "level": 3}})
    r["excluded"] = [c for c in r["excluded"] if c != "cmg"]
    r.pop("combinations")
    diag = {"levels": ["mrdx", "cmg", "diag_block", "diag_chapter"],
            "generalizes": {"diag_block": "mrdx", "diag_chapter": "diag_block"}}
    r["hierarchical_qis"] = {"diagnosis": {**diag, "adversary_level": "diag_block"}}
    with pytest.raises(ConfigError, match=r"hierarchical_qis\.diagnosis: level 'cmg' is released"
                       r" but in no verified combination and a suppressed 'diag_block'"):
        config.parse_release(r)
    r["hierarchical_qis"] = {"diagnosis": {**diag, "adversary_level": "cmg"}}
    cfg = config.parse_release(r)
    assert ("cmg", "mrdx") in cfg.propagation() and ("diag_block", "mrdx") in cfg.propagation()


def test_the_demo_and_integration_releases_resolve_with_their_propagation() -> None:
    """The demo's three releases (families over MRDx and CCI) resolve, with the same propagation
    pairs as before the fix."""
    demo = yaml.safe_load((ROOT / "demo" / "dbt_project.yml").read_text())["vars"]
    releases = [demo["deid_release"], *demo["deid_releases"].values()]
    for raw in releases:
        cfg = config.parse_release(raw)
        assert cfg.propagation() == [
            ("cmg", "mrdx"), ("diag_block", "diag_chapter"), ("diag_block", "mrdx"),
            ("diag_chapter", "diag_block"), ("diag_chapter", "mrdx"), ("short_cci", "cci_code")]
    assert config.parse_release(BASE).propagation() == []


def _published(data: pd.DataFrame, cfg: Any, columns: list[str]) -> np.ndarray:
    """The release's published cells of ``columns`` in the records' order, from the core's
    suppression with the release's combinations, propagation and families."""
    result = run_suppression(
        data, cfg.k, cfg.combinations, count_column=None, propagation=cfg.propagation(),
        columns=cfg.qi_names, verify_combinations=cfg.verified_combinations(),
        families=cfg.families)
    got = result.published().iloc[np.argsort(result.table.origin, kind="stable")]
    return got.reset_index(drop=True)[columns].to_numpy(dtype=object)


def _ages(rng: np.random.Generator, n: int) -> pd.DataFrame:
    """5-, 10- and 20-year bins of one age (nested), with two demographics."""
    age = rng.integers(0, 100, size=n)
    return pd.DataFrame({
        "prov": rng.choice(["E", "W", "C", "N"], size=n, p=[0.4, 0.3, 0.2, 0.1]),
        "gender": rng.choice(["F", "M"], size=n),
        "a5": [f"{a // 5 * 5}" for a in age], "a10": [f"{a // 10 * 10}" for a in age],
        "a20": [f"{a // 20 * 20}" for a in age]})


@pytest.mark.parametrize("seed", range(4))
def test_the_middle_level_never_shows_a_suppressed_adversary_level(seed: int) -> None:
    """F2 on the suppression itself (no dbt): an adversary knowing the 20-year bin (Q) reads the
    published 10-year bin too; every record stays consistent with k published rows (a row is
    consistent when each cell is suppressed or agrees, the 10-year cell inside the target's
    20-year bin). Before the fix the 10-year bin kept its cell where the 20-year one was
    suppressed and some records were consistent with fewer than k rows."""
    data = _ages(np.random.default_rng(seed), 500)
    qis = {q: {"column": "age"} for q in ("a5", "a10", "a20")}
    cfg = config.parse_release({
        "source": "src", "record_id": "id", "max_suppression": 1.0, "tau": 0.2,
        "quasi_identifiers": {"prov": {}, "gender": {}, **qis},
        "hierarchical_qis": {"age": {"levels": ["a5", "a10", "a20"], "adversary_level": "a20"}}})
    pub = _published(data, cfg, ["prov", "gender", "a20", "a10"])
    a10_as_20 = np.array([None if pd.isna(v) else str(int(v) // 20 * 20) for v in pub[:, 3]],
                         dtype=object)

    def consistent(col: np.ndarray, value: str) -> np.ndarray:
        return pd.isna(col) | (col == value)

    smallest = min(
        int((consistent(pub[:, 0], t.prov) & consistent(pub[:, 1], t.gender)
             & consistent(pub[:, 2], t.a20) & consistent(a10_as_20, t.a20)).sum())
        for t in data.drop_duplicates(["prov", "gender", "a20"]).itertuples())
    assert smallest >= cfg.k
    assert pd.isna(pub[pd.isna(pub[:, 2]), 3]).all()  # a20 suppressed: a10 suppressed


def _own_combination(name: str, rule: dict) -> dict:
    """r11b F3/F3b: a second level over age, declared coarser, no generalizes, in its own
    combination [level, gender] beside the project's three with age."""
    r = copy.deepcopy(BASE)
    r["quasi_identifiers"][name] = rule
    r["hierarchical_qis"] = {"age_family": {"levels": ["age", name]}}
    r["combinations"] = [*r["combinations"], [name, "gender"]]
    return r


@pytest.mark.parametrize("name, rule", [("age2", AGE_20), ("age5", AGE_5)])
def test_a_suppressed_level_is_suppressed_in_every_level_over_its_column(name, rule) -> None:
    """Review r11b, F3 (20-year age2) and F3b (5-year bins declared coarser than the 10-year
    age: the declared order is never checked against the bins): both levels are checked, and a
    suppressed age must not stay readable in the other level, finer or coarser, nor the other
    way round. Old code (62f2e56): accepted with propagation [('age2', 'age')] /
    [('age5', 'age')] only; a dbt build published 458 rows with age suppressed and the other
    level shown (13 records below k = 5 for an adversary knowing age; 23 with age5)."""
    cfg = config.parse_release(_own_combination(name, rule))
    assert ("age", name) in cfg.propagation() and (name, "age") in cfg.propagation()


def test_a_checked_level_below_the_adversary_level_reaches_its_column() -> None:
    """A level below the suppression level that an explicit combination checks is a source for
    the other levels over its column too (its suppressions protect a value an adversary knows)."""
    r = _own_combination("age2", AGE_20)
    r["hierarchical_qis"]["age_family"]["adversary_level"] = "age2"
    cfg = config.parse_release(r)
    assert ("age", "age2") in cfg.propagation() and ("age2", "age") in cfg.propagation()


@pytest.mark.parametrize("seed", range(3))
def test_a_coarser_level_in_its_own_combination_never_shows_a_suppressed_age(seed: int) -> None:
    """F3 on the suppression itself (no dbt): 10-year a10 in [prov, gender, a10], 20-year a20
    in [a20, gender], one family, no generalizes. An adversary knowing a10 knows a20: every
    record stays consistent with k published rows when both are compared. Old code: a20 kept
    its bin where a10 was suppressed."""
    data = _ages(np.random.default_rng(seed), 400)
    cfg = config.parse_release({
        "source": "src", "record_id": "id", "max_suppression": 1.0, "tau": 0.2,
        "quasi_identifiers": {"prov": {}, "gender": {}, "a10": {"column": "age"},
                              "a20": {"column": "age"}},
        "combinations": [["prov", "gender", "a10"], ["a20", "gender"]],
        "hierarchical_qis": {"age": {"levels": ["a10", "a20"]}}})
    pub = _published(data, cfg, ["prov", "gender", "a10", "a20"])

    def consistent(col: np.ndarray, value: str) -> np.ndarray:
        return pd.isna(col) | (col == value)

    smallest = min(
        int((consistent(pub[:, 0], t.prov) & consistent(pub[:, 1], t.gender)
             & consistent(pub[:, 2], t.a10) & consistent(pub[:, 3], t.a20)).sum())
        for t in data.drop_duplicates(["prov", "gender", "a10"]).itertuples())
    assert smallest >= cfg.k
    assert pd.isna(pub[pd.isna(pub[:, 2]), 3]).all()  # a10 suppressed: a20 suppressed
