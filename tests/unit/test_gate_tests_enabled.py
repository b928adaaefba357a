"""The gate tests of the optional gates exist only when their setting is declared (issue 33: a
release is a handful of nodes).

The gate table (release_gate_results) has a row of the small-area gate only with `small_areas`
(El Emam et al. 2010), and of an attribute-disclosure gate (distinct, entropy and recursive
(c,l)-diversity, Machanavajjhala et al. 2007; t-closeness, Li et al. 2007) only with `sensitive`
columns and the model's key of `attribute_disclosure`: the test of a gate not declared
(`deid_gate_<gate>`, a failing-rows query on the gate table) could never fail. The generic test
deid_gate disables itself at parse time (`config(enabled=false)`) for such a gate, deciding from
the release's settings with the macro the gate table decides with (optional_gates); a declared
gate's test, and every test of a gate that always has a row, is left as configured (the
project's own `enabled`/`severity` still apply). The publish step reads the gate table, never
the tests, so what it refuses does not change.

The macros rendered with Jinja outside dbt (tests/macro_render.py); the dbt parse of the
integration release (12 tests before, 7 now) is checked by
tests/integration/test_fresh_warehouse_dbt.py, a release declaring the attribute-disclosure
models by tests/integration/test_attribute_disclosure_dbt.py.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tests.macro_render import macro_caller

ROOT = Path(__file__).resolve().parents[2]
FILES = [ROOT / "macros" / "gates" / "gate_test.sql",
         ROOT / "macros" / "gates" / "optional_gates.sql"]

#: the gates that always have a row of the gate table, with a test (models/deid_models.yml)
ALWAYS = ["k_anonymity", "exact_k_anonymity", "max_suppression", "column_suppression_cap",
          "row_count", "plan_settings"]
OPTIONAL = ["small_areas", "distinct_l_diversity", "entropy_l_diversity",
            "recursive_cl_diversity", "t_closeness"]
#: the integration release's settings, as far as the gates go (integration_tests' vars)
BASE: dict[str, Any] = {
    "name": "r", "source": "src", "record_id": "id",
    "quasi_identifiers": {"age": {"level": 0}, "sex": {"level": 0}},
    "pass_through": ["discharge_disposition"], "tau": 0.2, "max_suppression": 0.05}
AD = {"distinct_l": 2, "entropy_l": 1.2, "recursive_c": 4, "recursive_l": 2, "t": 0.9}


def _parse(settings: Any, gate: str, refs: list[str] | None = None) -> list[dict[str, Any]]:
    """The config() calls of test deid_gate on `gate` rendered at parse time (execute false)
    in a release whose raw settings are `settings`; the package models it refs go to `refs`."""
    calls: list[dict[str, Any]] = []
    refs = [] if refs is None else refs

    def context(call):
        return {
            "execute": False,
            "config": lambda **kw: calls.append(kw) or "",
            "adapter": SimpleNamespace(dispatch=lambda name, package: call("default__" + name)),
            "dbt_deid": SimpleNamespace(
                own=lambda m: m, release_settings=lambda: settings,
                release_ref=lambda base: refs.append(base) or f"main.{base}",
                literal=lambda v: f"'{v}'", optional_gates=call("optional_gates")),
        }

    call = macro_caller(FILES, context)
    call("test_deid_gate")("main.deid_gate_results", gate, ["message"])
    return calls


def _enabled(settings: Any) -> set[str]:
    return {g for g in ALWAYS + OPTIONAL if {"enabled": False} not in _parse(settings, g)}


def test_a_release_without_optional_settings_has_the_tests_of_its_gates_only() -> None:
    # old code: every gate's test enabled, the five optional ones included (12 tests in the
    # integration release, 7 of them able to fail)
    assert _enabled(BASE) == set(ALWAYS)
    # the tests of the gates that always have a row call no config(): the project's configs
    # (enabled, severity) apply to them as before
    for gate in ALWAYS:
        assert _parse(BASE, gate) == []


@pytest.mark.parametrize(("changes", "declared"), [
    ({"small_areas": {"geography": "province", "population": "p", "level": 1}},
     {"small_areas"}),
    ({"pass_through": None, "sensitive": ["discharge_disposition"], "attribute_disclosure": AD},
     {"distinct_l_diversity", "entropy_l_diversity", "recursive_cl_diversity", "t_closeness"}),
    ({"pass_through": None, "sensitive": ["discharge_disposition"],
      "attribute_disclosure": {"t": 0.5}}, {"t_closeness"}),
    ({"pass_through": None, "sensitive": ["discharge_disposition"],
      "attribute_disclosure": {"recursive_c": 3, "recursive_l": 2}}, {"recursive_cl_diversity"}),
    # a model's key without a sensitive column: the gate table computes no attribute gate
    ({"attribute_disclosure": AD}, set()),
    # a sensitive column without a model: no attribute gate either
    ({"pass_through": None, "sensitive": ["discharge_disposition"]}, set()),
])
def test_a_declared_gate_has_its_test(changes: dict[str, Any], declared: set[str]) -> None:
    assert _enabled({**BASE, **changes}) == set(ALWAYS) | declared


def test_no_release_declared_disables_the_optional_tests() -> None:
    """The package used for its macros alone (no var deid_release): no gate table."""
    assert _enabled(None) == set(ALWAYS)


def test_every_gate_test_depends_on_the_diagnostics_model() -> None:
    """The gate tests are on the gate table and ref the release's deid_diagnostics (session 13:
    the view deid_release_gate they were on is gone). dbt's `build` makes a node wait for a
    test, and skips it when the test fails, when every node the test depends on is upstream of
    it: with the diagnostics model too, only the publish model; on the gate table alone, the
    diagnostics and the report would be skipped with it (the graph itself is checked by
    tests/integration/test_gate_selection_dbt.py). Old code: no ref (refs == [])."""
    for gate in ALWAYS + OPTIONAL:
        refs: list[str] = []
        _parse({**BASE, "sensitive": ["discharge_disposition"], "attribute_disclosure": AD,
                "small_areas": {"column": "age"}}, gate, refs)
        assert refs == ["deid_diagnostics"], (gate, refs)
