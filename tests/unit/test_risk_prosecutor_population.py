"""Prosecutor, journalist, marketer and registry-matching measures on hand-computed tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from dbt_deid.errors import ConfigError, DataError
from dbt_deid.risk import (
    marketer_bound,
    population_class_sizes,
    population_risk,
    prosecutor_risk,
    prosecutor_table,
    registry_match_risk,
)

QI = ["sex", "age"]


def released() -> pd.DataFrame:
    # classes (suppressed = own category): 3, 1, 2, 5 -> n = 11, |J| = 4
    return pd.DataFrame(
        {"sex": ["M", "F", None, "F"], "age": ["30", "30", "30", "40"], "n": [3, 1, 2, 5]}
    )


def truth() -> pd.DataFrame:
    return pd.DataFrame({"sex": ["M", "F", "F", "F"], "age": ["30", "30", "30", "40"],
                         "n": [3, 1, 2, 5]})


def test_prosecutor_hand_computed():
    r = prosecutor_risk(released(), QI, 0.25)  # k = 4
    assert r.k == 4 and r.n_records == 11 and r.n_classes == 4
    assert list(r.class_size) == [3, 1, 2, 5]
    assert r.stats.max_risk == 1.0
    assert r.stats.mean_risk == pytest.approx(4 / 11)  # mean of 1/f_j over records = |J|/n
    assert r.stats.records_above_tau == 6
    assert r.stats.share_above_tau == pytest.approx(6 / 11)
    assert r.exact is None and not r.ok


def test_prosecutor_exact_variant_uses_wildcards():
    r = prosecutor_risk(released(), QI, 0.25, true_values=truth())
    # (M,30): 3 + 2 wildcard = 5; (F,30): 1 + 2 = 3 (twice); (F,40): 5
    assert list(r.consistent) == [5, 3, 3, 5]
    assert r.exact.smallest_class == 3
    assert r.exact.records_above_tau == 3
    assert r.exact.max_risk == pytest.approx(1 / 3)


def test_prosecutor_threshold_boundary_and_table():
    frame = pd.DataFrame({"sex": ["M", "F"], "age": ["1", "1"], "n": [5, 7]})
    r = prosecutor_risk(frame, QI, 0.2)  # risk 1/5 = 0.2 is not above 0.2
    assert r.stats.records_above_tau == 0 and r.ok
    table = prosecutor_table(released(), QI, 0.25, true_values=truth())
    assert list(table["class_size"]) == [3, 1, 2, 5]
    assert list(table["above_tau"]) == [True, True, True, False]
    assert list(table["exact_risk"]) == pytest.approx([0.2, 1 / 3, 1 / 3, 0.2])


def test_prosecutor_record_level_input():
    records = pd.DataFrame({"sex": ["M"] * 3 + ["F"], "age": ["1"] * 4})
    r = prosecutor_risk(records, QI, 0.5, count_column=None)
    assert list(r.class_size) == [3, 3, 3, 1] and r.n_records == 4


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"tau": 0}, ConfigError),
        ({"tau": 1.5}, ConfigError),
        ({"qi": ["sex", "zip"]}, DataError),
        ({"qi": []}, ConfigError),
        ({"qi": ["sex", "sex"]}, ConfigError),
    ],
)
def test_prosecutor_bad_inputs(kwargs, error):
    args = {"qi": QI, "tau": 0.2} | kwargs
    with pytest.raises(error):
        prosecutor_risk(released(), args["qi"], args["tau"])


def test_prosecutor_bad_counts_and_misaligned_truth():
    bad = released().assign(n=[3, 0, 2, 5])
    with pytest.raises(DataError, match="positive"):
        prosecutor_risk(bad, QI, 0.2)
    with pytest.raises(DataError, match="aligned"):
        prosecutor_risk(released(), QI, 0.2, true_values=truth().iloc[:3])
    wrong = truth().assign(age=["99", "30", "30", "40"])
    with pytest.raises(DataError, match="consistent with no released record"):
        prosecutor_risk(released(), QI, 0.2, true_values=wrong)


def population() -> pd.DataFrame:
    return pd.DataFrame({"sex": ["M", "F", "F", "M"], "age": ["30", "30", "40", "40"],
                         "n": [30, 10, 50, 10]})


def test_journalist_and_marketer_with_population_table():
    pub = pd.DataFrame({"sex": ["M", "F", "F"], "age": ["30", "30", "40"], "n": [3, 1, 5]})
    r = population_risk(pub, QI, 0.05, population=population())
    assert r.population_size == 100 and r.sampling_fraction == pytest.approx(0.09)
    assert list(r.population_class_size) == [30, 10, 50]
    assert r.journalist.max_risk == pytest.approx(0.1)  # 1 / min F_j
    assert r.journalist.records_above_tau == 1  # F = 10 < 20
    # El Emam et al. 2011 eq. 2: sum_j f_j / C_j = 3/30 + 1/10 + 5/50
    assert r.marketer_expected_matches == pytest.approx(0.3)
    assert r.marketer_risk == pytest.approx(0.3 / 9)
    assert r.population_classes == 4
    assert r.marketer_bound == pytest.approx(4 * 0.09)  # eq. 3: |Q| alpha


def test_population_sizes_treat_suppressed_as_wildcard():
    sizes = population_class_sizes(released(), population(), QI,
                                   population()["n"].to_numpy())
    assert list(sizes) == [30, 10, 40, 50]  # (None, 30) matches (M,30) + (F,30)
    all_null = pd.DataFrame({"sex": [None], "age": [None]})
    assert list(population_class_sizes(all_null, population(), QI,
                                       population()["n"].to_numpy())) == [100]


def test_population_risk_with_sampling_fraction():
    pub = pd.DataFrame({"sex": ["M", "F"], "age": ["30", "30"], "n": [4, 2]})
    r = population_risk(pub, QI, 0.2, sampling_fraction=0.1)
    assert list(r.population_class_size) == pytest.approx([40, 20])  # F_j ~ f_j / alpha
    assert r.marketer_expected_matches == pytest.approx(2 * 0.1)  # |J| alpha
    assert r.journalist.max_risk == pytest.approx(0.05)
    same = population_risk(pub, QI, 0.2, population_size=60)
    assert same.sampling_fraction == pytest.approx(0.1)
    with pytest.raises(ConfigError, match="disagrees"):
        population_risk(pub, QI, 0.2, sampling_fraction=0.5, population_size=60)
    with pytest.raises(ConfigError):
        population_risk(pub, QI, 0.2, population_size=3)
    with pytest.raises(ConfigError):
        population_risk(pub, QI, 0.2)
    with pytest.raises(ConfigError):
        population_risk(pub, QI, 0.2, sampling_fraction=0.0)


def test_population_table_smaller_than_release_class_is_clamped():
    pub = pd.DataFrame({"sex": ["M", "F"], "age": ["30", "30"], "n": [40, 8]})
    r = population_risk(pub, QI, 0.2, population=population())
    assert r.classes_missing_from_population == 1  # 40 released (M,30) but 30 in population
    assert list(r.population_class_size) == [40, 10]


def test_marketer_bound_paper_worked_value():
    # El Emam et al. 2011: |Q| = 2 x 20 x 10 = 400 and alpha = 0.009 -> about 4 correct matches
    assert marketer_bound(2 * 20 * 10, 0.009) == pytest.approx(3.6)
    assert round(marketer_bound(400, 0.009)) == 4


def test_registry_match_equation_1_per_region():
    pop = pd.DataFrame({
        "prov": ["A", "A", "B", "B"], "sex": ["M", "F", "M", "F"],
        "age": ["30", "30", "30", "30"], "n": [3, 30, 100, 1],
    })
    out = registry_match_risk(pop, ["sex", "age"], "prov", 0.2)
    assert list(out["region"]) == ["A", "B"]
    assert list(out["population"]) == [33, 101]
    assert list(out["at_risk"]) == [3, 1]
    assert list(out["share"]) == pytest.approx([3 / 33, 1 / 101])
    # tau 0.5: 1/C > 0.5 only for C = 1
    out2 = registry_match_risk(pop, ["prov", "sex", "age"], "prov", 0.5)
    assert list(out2["at_risk"]) == [0, 1]
    with pytest.raises(DataError):
        registry_match_risk(pop, ["sex"], "province", 0.2)


def test_counts_are_weights_not_rows():
    rng = np.random.default_rng(3)
    rec = pd.DataFrame({"sex": rng.choice(["M", "F"], 200), "age": rng.choice(list("abcd"), 200)})
    pat = rec.groupby(QI).size().reset_index(name="n")
    a = prosecutor_risk(rec, QI, 0.1, count_column=None)
    b = prosecutor_risk(pat, QI, 0.1)
    assert a.stats.max_risk == b.stats.max_risk
    assert a.stats.mean_risk == pytest.approx(b.stats.mean_risk)
    assert a.stats.records_above_tau == b.stats.records_above_tau
    assert a.n_classes == b.n_classes == len(pat)
