"""Unit tests of the package's public macros, as dbt-utils has them (issue 15).

``integration_tests/models/macro_tests/``: each ``mt_<macro>`` model runs one macro (pattern
counts, class sizes, risk summary, record risk, the exact consistent-set summary, the gate
queries, hierarchy rules, applying the suppression map) on a small inline fixture, and a
``rows_equal`` test compares it row for row with ``mt_<macro>__expected``, whose comment works
the figures out by hand. One ``dbt build`` of those models only, no release.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.integration.dbt_runner import INTEGRATION, run_dbt

MACRO_TESTS = INTEGRATION / "models" / "macro_tests"


def test_every_macro_fixture_equals_its_expected_rows(tmp_path: Path) -> None:
    run = run_dbt(INTEGRATION, ["build", "--select", "tag:macro_tests"], tmp_path,
                  {"deid_macro_tests": True}, artifacts=True)
    assert run.ok, run.output[-4000:]
    results = json.loads((tmp_path / "target" / "run_results.json").read_text())["results"]
    tests = {r["unique_id"].split(".")[2]: r for r in results
             if r["unique_id"].startswith("test.")}
    expected_models = sorted(p.stem.removesuffix("__expected")
                             for p in MACRO_TESTS.glob("mt_*__expected.sql")
                             if not p.stem.startswith("mt_released_"))
    checked = sorted(name.removeprefix("equal_") for name in tests
                     if name != "rows_equal_must_fail")
    assert checked == expected_models  # every fixture has its equality test, and it ran
    failed = {n: r["status"] for n, r in tests.items()
              if n != "rows_equal_must_fail" and r["status"] != "pass"}
    assert failed == {}
    # the suppression map is applied without ranking the records only when every map row covers
    # its whole pattern (mt_suppression_map_whole); a map with a partial row keeps the ranks
    compiled = tmp_path / "target" / "run" / "dbt_deid_integration_tests" / "models" / "macro_tests"
    assert "row_number()" not in (compiled / "mt_apply_suppression_whole.sql").read_text()
    assert "row_number()" in (compiled / "mt_apply_suppression.sql").read_text()
    # the equality test is not vacuous: a copy with one value changed differs in 2 rows
    must_fail = tests["rows_equal_must_fail"]
    assert must_fail["status"] == "warn" and must_fail["failures"] == 2
