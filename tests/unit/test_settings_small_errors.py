"""Issue 35's small settings errors, on both paths (the Jinja parse-time check rendered outside
dbt, the Python resolver and ``parse_release``): each names the setting and shows the value as
it was given."""

from __future__ import annotations

import math
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from dbt_deid.config import parse_release
from dbt_deid.errors import ConfigError
from dbt_deid.settings_resolve import resolve
from tests.macro_render import macro_caller
from tests.settings_render import JinjaSettingError, jinja_config

ROOT = Path(__file__).resolve().parents[2]
BASE = {"name": "r", "source": "src", "record_id": "id", "max_suppression": 0.1,
        "quasi_identifiers": {"age": {}, "sex": {}}, "combinations": [["age", "sex"]]}


def _errors(raw: dict[str, Any]) -> list[str]:
    """The error of each path: Jinja, the resolver, parse_release."""
    out = []
    with pytest.raises(JinjaSettingError) as j:
        jinja_config("release", raw)
    out.append(str(j.value))
    for check in (lambda: resolve("release", raw), lambda: parse_release(raw)):
        with pytest.raises(ConfigError) as p:
            check()
        out.append(str(p.value))
    return out


@pytest.mark.parametrize("fraction", [math.nan, math.inf, -math.inf])
def test_a_nan_sample_fraction_names_the_setting(fraction: float) -> None:
    """Was: accepted at parse time, then "cannot convert float NaN to integer"."""
    for message in _errors({**BASE, "tau": 0.2, "sample": {"fraction": fraction}}):
        assert "sample.fraction" in message and "must be a number in (0, 1]" in message
        assert f"got {fraction}" in message


def test_a_quoted_k_is_shown_as_a_string() -> None:
    """Was: "must be an integer >= 2, got 5" (the YAML string "5" read as the number)."""
    for message in _errors({**BASE, "k": "5"}):
        assert "got '5' (a string)" in message and "k" in message


def test_a_nan_threshold_and_cap_name_their_setting() -> None:
    for key, value in (("tau", math.nan), ("max_suppression", math.nan)):
        raw = {"tau": 0.2, **BASE, key: value}
        for message in _errors(raw):
            assert key in message and "nan" in message


def test_a_missing_hierarchy_seed_is_named_missing() -> None:
    """Was: "hierarchy 'zip_h' of column 'zip' has -1 levels" (the relation was not in the
    warehouse, so it had no columns)."""
    call = macro_caller(sorted((ROOT / "macros" / "hierarchy").glob("*.sql")), lambda call: {
        "this": SimpleNamespace(identifier="deid_hierarchy"),
        "exceptions": SimpleNamespace(raise_compiler_error=_raise),
        "dbt_deid": SimpleNamespace(_assert_lookup_levels=call("_assert_lookup_levels")),
    })
    q = {"name": "zip", "hierarchy": "zip_h", "level": 1}
    with pytest.raises(JinjaSettingError) as err:
        call("default__assert_lookup_hierarchy")(q, "main.zip_h", [])
    message = str(err.value)
    assert "hierarchy 'zip_h' of column 'zip' is missing" in message
    assert "main.zip_h does not exist" in message and "-1" not in message


def _raise(message: str) -> None:
    raise JinjaSettingError(message)
