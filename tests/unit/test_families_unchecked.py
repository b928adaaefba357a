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

import pytest
import yaml

from dbt_deid import config
from dbt_deid.errors import ConfigError

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
    # Table 7 (every level evaluated) carries no suppression upwards: refused again
    r["hierarchical_qis"]["age_family"]["evaluate_all_levels"] = True
    with pytest.raises(ConfigError, match=r"a suppressed 'age' \(a checked level\) would stay"
                       " readable in it"):
        config.parse_release(r)


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
