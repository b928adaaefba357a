"""The attribute-disclosure definitions (dbt_deid.attribute_disclosure) on hand-computed cases:
Machanavajjhala et al. 2007 (distinct, entropy, recursive (c, l)-diversity) and Li et al. 2007
(t-closeness: the equal, ordered and hierarchical ground distances, with the paper's salary
example of section 4.2)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from dbt_deid import attribute_disclosure as ad


def test_distinct_and_entropy_l() -> None:
    assert ad.distinct_values({"a": 2, "b": 2, "c": 0}) == 2
    # two equally frequent values: entropy ln 2, exactly entropy 2-diverse
    assert ad.entropy_l({"a": 2, "b": 2}) == pytest.approx(2.0)
    # 3:1: -(0.75 ln 0.75 + 0.25 ln 0.25) = 0.562335
    assert ad.entropy({"a": 3, "b": 1}) == pytest.approx(0.5623351446)
    assert ad.entropy_l({"a": 3, "b": 1}) == pytest.approx(1.7547654)
    assert ad.entropy_l({"a": 5}) == pytest.approx(1.0)


def test_recursive_cl() -> None:
    counts = {"a": 5, "b": 3, "c": 2}
    assert ad.recursive_ratio(counts, 2) == pytest.approx(1.0)      # 5 / (3 + 2)
    assert ad.recursive_ratio(counts, 3) == pytest.approx(2.5)      # 5 / 2
    assert ad.is_recursive_cl_diverse(counts, 2, 2)
    assert not ad.is_recursive_cl_diverse(counts, 1, 2)             # 5 < 1 x 5 is false
    assert ad.is_recursive_cl_diverse(counts, 3, 3)                 # 5 < 3 x 2
    assert not ad.is_recursive_cl_diverse({"a": 4, "b": 1}, 10, 3)  # fewer than l values
    assert ad.recursive_ratio({"a": 4, "b": 1}, 3) == math.inf


SALARY = [3, 4, 5, 6, 7, 8, 9, 10, 11]  # Li et al. 2007, section 4.2 (thousands)


def test_t_closeness_ordered_matches_li_2007() -> None:
    whole = ad.counts_of(SALARY)
    # "P1 = {3k, 4k, 5k} ... D[P1, Q] = 0.375"; "P2 = {6k, 8k, 11k} ... 0.167"
    assert ad.emd_ordered(ad.counts_of([3, 4, 5]), whole, SALARY) == pytest.approx(0.375)
    assert ad.emd_ordered(ad.counts_of([6, 8, 11]), whole, SALARY) == pytest.approx(1 / 6)
    assert ad.emd_ordered(whole, whole, SALARY) == pytest.approx(0.0)


def test_t_closeness_equal() -> None:
    whole = ad.counts_of(SALARY)
    # 1/2 (3 x (1/3 - 1/9) + 6 x 1/9) = 2/3, whatever the values
    assert ad.emd_equal(ad.counts_of([3, 4, 5]), whole) == pytest.approx(2 / 3)
    assert ad.emd_equal(ad.counts_of([6, 8, 11]), whole) == pytest.approx(2 / 3)
    assert ad.emd_equal({"x": 1}, {"x": 4}) == 0.0


TREE = [["a", "X", "*"], ["b", "X", "*"], ["c", "Y", "*"], ["d", "Y", "*"]]


def test_t_closeness_hierarchical() -> None:
    whole = {"a": 1, "b": 1, "c": 1, "d": 1}
    # all mass under X: the root (level 2 of 2) moves 1/2: 2/2 x 1/2
    assert ad.emd_hierarchical({"a": 1, "b": 1}, whole, TREE) == pytest.approx(0.5)
    # a and c: b's quarter to a and d's to c, each within a level-1 node: 2 x 1/2 x 1/4
    assert ad.emd_hierarchical({"a": 1, "c": 1}, whole, TREE) == pytest.approx(0.25)
    # one leaf: 1/4 within X (1/2 x 1/4) + 1/2 across the root (1 x 1/2)
    assert ad.emd_hierarchical({"a": 1}, whole, TREE) == pytest.approx(0.625)
    with pytest.raises(ValueError, match="not leaves"):
        ad.emd_hierarchical({"e": 1}, whole, TREE)


def test_class_figures_and_gates() -> None:
    frame = pd.DataFrame({
        "age": ["30-39"] * 4 + ["40-49"] * 4 + [None] * 2,
        "diagnosis": ["flu", "flu", "flu", "flu", "flu", "cold", "cold", "asthma",
                      "cold", None],
    })
    fig = ad.class_figures(frame, ["age"], "diagnosis", recursive_l=2)
    by = {r["class"]: r for r in fig.to_dict("records")}
    assert by[("30-39",)]["distinct"] == 1                  # homogeneous
    assert by[("40-49",)]["distinct"] == 3
    assert by[(None,)]["distinct"] == 2                     # the missing value is a value
    assert by[("40-49",)]["recursive_ratio"] == pytest.approx(1.0)  # 2 / (1 + 1)
    fails = ad.failing_classes(fig, ad.Models(distinct_l=2, entropy_l=2.0, recursive_c=3,
                                              recursive_l=2, t=0.5))
    # entropy: the 2-value class of 1:1 is exactly 2-diverse (passes at the limit)
    assert fails == {"distinct_l_diversity": 1, "entropy_l_diversity": 1,
                     "recursive_cl_diversity": 1, "t_closeness": 1}
    assert ad.release_figures(fig)["distinct_l"] == 1
    # Q = flu 5, cold 3, asthma 1, <missing> 1 (of 10); the flu class: 1/2 (0.5 + 0.3 + 0.1
    # + 0.1) = 0.5; the class of a missing age (cold, <missing>): 1/2 (0.5 + 0.2 + 0.1 + 0.4)
    assert by[("30-39",)]["emd"] == pytest.approx(0.5)
    assert fig["emd"].max() == pytest.approx(0.6)
    assert ad.failing_classes(fig, ad.Models(t=0.6)) == {"t_closeness": 0}


def test_class_figures_ordered_numbers_sort_numerically() -> None:
    frame = pd.DataFrame({"g": ["x"] * 3 + ["y"] * 6, "salary": SALARY})
    fig = ad.class_figures(frame, ["g"], "salary", distance="ordered")
    assert sorted(fig["emd"].round(6)) == sorted([round(0.375, 6), round(0.1875, 6)])


_BASE = {"name": "r", "source": "src", "record_id": "id", "max_suppression": 0.1, "k": 2,
         "quasi_identifiers": {"age": {}}, "combinations": [["age"]]}


@pytest.mark.parametrize(("extra", "words"), [
    ({"sensitive": ["dx"]}, "no model gates them"),
    ({"attribute_disclosure": {"t": 0.2}}, "no sensitive column"),
    ({"sensitive": ["dx"], "attribute_disclosure": {"recursive_c": 3}}, "together"),
    ({"sensitive": ["dx"], "attribute_disclosure": {"t": 0.2, "ordered": ["los"]}},
     "not a sensitive column"),
    ({"sensitive": ["dx"], "attribute_disclosure": {"distinct_l": 2, "ordered": ["dx"]}},
     "needs t"),
    ({"sensitive": ["dx"], "attribute_disclosure": {"t": 0.2, "ordered": ["dx"],
                                                    "hierarchies": {"dx": "dx_h"}}},
     "both ordered and hierarchical"),
    ({"sensitive": ["dx"], "pass_through": ["dx"], "attribute_disclosure": {"t": 0.2}},
     "one role"),
])
def test_the_resolver_refuses_bad_attribute_disclosure(extra: dict, words: str) -> None:
    """Relations between settings: refused by the resolver the plan node runs (the build fails
    there, nothing is published); the parse-time check leaves them to it (issue 33)."""
    from dbt_deid.errors import DeidError
    from dbt_deid.settings_resolve import resolve
    from tests.settings_render import jinja_config

    raw = {**_BASE, **extra}
    with pytest.raises(DeidError, match=words):
        resolve("release", raw)
    jinja_config("release", raw)


def test_a_valid_attribute_disclosure_passes_both_validators() -> None:
    from dbt_deid.settings_resolve import resolve
    from tests.settings_render import jinja_config

    raw = {**_BASE, "sensitive": ["dx", "los"], "attribute_disclosure": {
        "distinct_l": 2, "entropy_l": 1.5, "recursive_c": 3, "recursive_l": 2, "t": 0.3,
        "ordered": ["los"], "hierarchies": {"dx": "dx_h"}}}
    resolve("release", raw)
    jinja_config("release", raw)


# --- the gate's SQL (rendered outside dbt, run on DuckDB) equals the reference --------------

def _tables(frame: pd.DataFrame, qis: list[str], sensitive: str):
    import duckdb

    con = duckdb.connect()
    data = frame.reset_index(drop=True).assign(rid=range(len(frame)))
    truth = data[["rid", *qis]]  # noqa: F841 (read by DuckDB)
    src = data[["rid", sensitive]]  # noqa: F841
    con.execute("create table truth as select * from truth")
    con.execute("create table src as select * from src")
    return con


def _compare(frame: pd.DataFrame, qis: list[str], sensitive: str, distance: str,
             hierarchy: list[list[str]] | None = None) -> None:
    from tests.attribute_disclosure_sql import class_figures_sql

    con = _tables(frame, qis, sensitive)
    hname = None
    if hierarchy is not None:
        levels = pd.DataFrame(hierarchy, columns=[f"level_{i}" for i in range(len(hierarchy[0]))])
        con.register("levels", levels)
        con.execute("create table h as select * from levels")
        hname = "h"
    got = class_figures_sql(con, qis, sensitive, {"t": 0.5, "recursive_l": 2},
                            hierarchy=hname, ordered=distance == "ordered")
    want = ad.class_figures(frame, qis, sensitive, distance=distance, hierarchy=hierarchy,
                            recursive_l=2)
    key = ["records", "distinct_values"]
    got = got.sort_values(["records", "distinct_values", "emd"]).reset_index(drop=True)
    want = want.rename(columns={"distinct": "distinct_values"}).sort_values(
        ["records", "distinct_values", "emd"]).reset_index(drop=True)
    assert got[key].values.tolist() == want[key].values.tolist()
    assert np.allclose(np.exp(got["entropy"]), want["entropy_l"])
    assert np.allclose(got["emd"], want["emd"])
    ratio = want["recursive_ratio"].replace(math.inf, np.nan)
    assert np.allclose(got["recursive_ratio"].astype(float), ratio, equal_nan=True)


def test_sql_matches_reference_on_the_hand_cases() -> None:
    frame = pd.DataFrame({"g": ["x"] * 3 + ["y"] * 6, "salary": SALARY})
    _compare(frame, ["g"], "salary", "ordered")
    _compare(frame, ["g"], "salary", "equal")
    tree = pd.DataFrame({"g": ["p", "p", "q", "q", None], "dx": ["a", "b", "c", "d", "a"]})
    _compare(tree, ["g"], "dx", "hierarchical", TREE)


@pytest.mark.parametrize("seed", range(4))
def test_sql_matches_reference_on_random_tables(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = 300
    frame = pd.DataFrame({
        "a": rng.choice(["1", "2", "3", None], n), "b": rng.choice(["u", "v"], n),
        "dx": rng.choice(["a", "b", "c", "d"], n, p=[0.55, 0.25, 0.15, 0.05]),
        "los": rng.choice([1, 2, 3, 5, 8, 13, 40], n),
    })
    for distance in ("equal", "hierarchical"):
        _compare(frame, ["a", "b"], "dx", distance, TREE if distance == "hierarchical" else None)
    _compare(frame, ["a", "b"], "los", "ordered")


def test_a_sensitive_column_is_a_published_role_for_lineage() -> None:
    from dbt_deid.dbt_side.lineage import ALLOWED_ROLES, roles_from_settings

    roles = roles_from_settings({**_BASE, "sensitive": ["DX"], "pass_through": ["ward"]})
    assert roles["dx"] == "sensitive" and roles["ward"] == "pass_through"
    assert "sensitive" in ALLOWED_ROLES


def test_check_names_the_sensitive_columns_and_their_models() -> None:
    from dbt_deid.config import parse_release
    from dbt_deid.tools.commands.check import _release_line

    cfg = parse_release({**_BASE, "sensitive": ["dx"],
                         "attribute_disclosure": {"distinct_l": 3, "t": 0.25}})
    assert _release_line(cfg).endswith(", 1 sensitive column(s) gated by distinct l 3, t 0.25")
