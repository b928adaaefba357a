"""Release configuration: one clear error per bad setting (issue 2, item 2)."""

from __future__ import annotations

import copy

import pytest

from dbt_deid.config import k_from_tau, parse_release
from dbt_deid.errors import ConfigError

BASE = {
    "name": "r",
    "source": "src",
    "record_id": "id",
    "direct_identifiers": ["name"],
    "quasi_identifiers": {
        "age": {"rule": {"type": "interval", "levels": [{"width": 5, "top_code": 90}]},
                "level": 1},
        "sex": {"level": 0, "weight": 0.5},
        "dx": {"hierarchy": "hier_dx", "level": 2},
    },
    "combinations": [["age", "sex"], ["age", "dx"]],
    "tau": 0.2,
    "max_suppression": 0.1,
    "column_suppression_cap": {"dx": 0.15},
}


def test_valid_release_parses() -> None:
    cfg = parse_release(BASE)
    assert cfg.k == 5
    assert cfg.weights == {"age": 1.0, "sex": 0.5, "dx": 1.0}
    assert cfg.caps == {"dx": 0.15}
    assert cfg.protected_combinations() == [("age", "sex"), ("age", "dx")]
    complete = parse_release({**BASE, "algorithm": "complete"})
    assert complete.protected_combinations() == [("age", "sex", "dx")]


@pytest.mark.parametrize(
    ("tau", "k"), [(0.2, 5), (0.05, 20), (0.04, 25), (0.33, 4), (1 / 3, 3), (0.1, 10), (0.5, 2)]
)
def test_k_is_ceil_of_inverse_tau(tau: float, k: int) -> None:
    assert k_from_tau(tau) == k


def _bad(path: list, value: object) -> dict:
    cfg = copy.deepcopy(BASE)
    node = cfg
    for key in path[:-1]:
        node = node[key]
    if value is KeyError:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return cfg


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (["tau"], 0, "tau must be a number in (0, 1]"),
        (["tau"], 1.5, "tau must be a number in (0, 1]"),
        (["tau"], 1, "k must be >= 2"),
        (["tau"], "high", "tau must be a number"),
        (["max_suppression"], 1.2, "max_suppression must be a number in [0, 1]"),
        (["max_suppression"], -0.1, "max_suppression must be a number in [0, 1]"),
        (["combinations"], [["age", "zip"]], "combinations[1] names unknown column 'zip'"),
        (["combinations"], [["age", "age"]], "combinations[1] repeats a column"),
        (["combinations"], [], "combinations must be a non-empty list"),
        (["quasi_identifiers", "sex", "weight"], 2, "quasi_identifiers.sex.weight"),
        (["quasi_identifiers", "sex", "level"], 1, "quasi_identifiers.sex.level is 1 but no"),
        (["quasi_identifiers", "age", "level"], 3, "quasi_identifiers.age.level is 3"),
        (["column_suppression_cap"], {"dx": 1.5}, "column_suppression_cap.dx"),
        (["column_suppression_cap"], {"zip": 0.1}, "column_suppression_cap names unknown"),
        (["direct_identifiers"], ["age"], "direct_identifiers lists 'age'"),
        (["algorithm"], "greedy", "algorithm must be one of"),
        (["quasi_identifiers"], {}, "quasi_identifiers must be a non-empty mapping"),
        (["quasi_identifiers", "age", "rule"], {"type": "interval", "levels": [{"width": 0}]},
         "quasi_identifiers.age.rule.levels[1].width"),
        (["quasi_identifiers", "age", "rule"], {"type": "interval", "levels": [{"breaks": [5, 1]}]},
         "breaks must be a non-empty list of increasing numbers"),
        (["quasi_identifiers", "age", "rule"], {"type": "date", "levels": [{"trunc": "day"}]},
         "trunc must be one of"),
    ],
)
def test_bad_settings_name_the_setting(path: list, value: object, message: str) -> None:
    with pytest.raises(ConfigError) as err:
        parse_release(_bad(path, value))
    assert message in str(err.value)


def test_k_given_directly() -> None:
    cfg = _bad(["tau"], KeyError)
    cfg["k"] = 3
    assert parse_release(cfg).k == 3
    cfg["k"] = 1
    with pytest.raises(ConfigError, match="k must be >= 2"):
        parse_release(cfg)
    cfg["k"] = 4
    cfg["tau"] = 0.2
    with pytest.raises(ConfigError, match="tau 0.2 gives k"):
        parse_release(cfg)
