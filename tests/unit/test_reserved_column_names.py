"""Column names the package adds next to the quasi-identifiers are refused as QI and sensitive
names (review 13 final, L2 and L4).

The advice rows of ``deid_suppression_map`` live in ``advice__*`` columns and the exact check's
figures in the ``deid_consistent_<i>`` and ``deid_exact_combinations`` columns of
``deid_suppressed_patterns``, beside the QI columns (and the sensitive columns under the
attribute-disclosure remedy). A QI named ``advice__kind`` was the advice's kind column (every
map row read as an advice row); one named ``deid_consistent_1`` made DuckDB rename the count
and the exact distribution read the QI's values as set sizes. Refused by name, with one error
naming the setting. ``default__assert_release_names`` rendered with Jinja outside dbt."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from tests.macro_render import macro_caller
from tests.unit.test_line_lock_sql import ROOT

FILES = [ROOT / "macros" / "validation" / "assert_release_inputs.sql",
         ROOT / "macros" / "config" / "release_config.sql"]


class Refused(Exception):
    pass


def _check(qis: list[str], sensitive: list[str] | None = None) -> None:
    def refuse(msg: str) -> None:
        raise Refused(msg)

    def context(call):
        return {
            "dbt_deid": SimpleNamespace(
                own=lambda m: m, ola_enabled=lambda: False,
                _config_error=call("_config_error")),
            "adapter": SimpleNamespace(dispatch=lambda name, pkg: call("default__" + name)),
            "exceptions": SimpleNamespace(raise_compiler_error=refuse),
        }
    cfg: dict[str, Any] = {
        "record_id": "rid", "qis": [{"name": q, "column": q} for q in qis],
        "direct_identifiers": [], "pass_through": [], "sensitive": sensitive or []}
    call = macro_caller(FILES, context)
    call("default__assert_release_names")(cfg, ["rid", *qis, *(sensitive or [])])


@pytest.mark.parametrize("name", ["advice__kind", "Advice__Message", "deid_consistent_1",
                                  "DEID_CONSISTENT_12", "deid_exact_combinations"])
def test_a_qi_named_like_a_package_column_is_refused(name: str) -> None:
    with pytest.raises(Refused, match=rf"release setting 'quasi_identifiers.{name}': the name"
                       rf" '{name}' starts with '[a-z_]+'.*give the column another name"):
        _check(["age", name])


def test_a_sensitive_column_named_like_a_package_column_is_refused() -> None:
    with pytest.raises(Refused, match=r"release setting 'sensitive': the name 'advice__dx'"):
        _check(["age"], sensitive=["advice__dx"])


@pytest.mark.parametrize("name", ["advice", "consistent_1", "deid_consistent", "my_advice__x"])
def test_near_names_pass(name: str) -> None:
    _check(["age", name])


@pytest.mark.parametrize("name", ["advice__kind", "Deid_Consistent_2", "deid_exact_combinations"])
def test_the_core_refuses_the_same_names(name: str) -> None:
    """The core's parse_release (and so `python -m dbt_deid check`, without a warehouse) gives
    the same answer as the dbt check above (review 13 final, update 23:02)."""
    from dbt_deid.config import parse_release
    from dbt_deid.errors import ConfigError

    raw = {"name": "r", "source": "src", "record_id": "rid", "tau": 0.2,
           "max_suppression": 0.1, "quasi_identifiers": {"age": {}, name: {}}}
    with pytest.raises(ConfigError, match=rf"quasi_identifiers.{name}: the name '{name}' starts"
                       r" with '[a-z_]+', a column the package adds"):
        parse_release(raw)
    raw = {**raw, "quasi_identifiers": {"age": {}, "sex": {}}, "sensitive": [name],
           "attribute_disclosure": {"distinct_l": 2}}
    with pytest.raises(ConfigError, match=rf"sensitive: the name '{name}' starts"):
        parse_release(raw)
