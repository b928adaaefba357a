"""Selecting upstream models does not pick up the gate tests (issue 19, item 4): `dbt build -s
+deid_ola_search` used to run the release gates (their tests read the release plan through
`ref()`, so eager indirect selection chose them) against a gate view that build did not
refresh. The gate tests now depend on the model they test only; selecting that model (or the
publish model's parents) still brings them."""

from __future__ import annotations

import pytest

from tests.integration.dbt_runner import INTEGRATION, run_dbt
from tests.integration.test_ola_dbt import _release as ola_release

pytestmark = pytest.mark.dbt


def _tests(tmp_path, select: str) -> set[str]:
    run = run_dbt(INTEGRATION, ["ls", "--select", select, "--resource-type", "test",
                                "--output", "name", "--quiet"], tmp_path, ola_release())
    assert run.ok, run.output[-3000:]
    return {line.strip() for line in run.output.splitlines() if line.strip()}


def test_upstream_selection_runs_no_release_gate(tmp_path) -> None:
    tests = _tests(tmp_path, "+deid_ola_search")
    # old code listed six gate tests here (deid_release_gate's and deid_published's)
    assert tests <= {"deid_gate_ola_node_found"}, tests


def test_selecting_the_publish_model_with_its_parents_runs_every_gate(tmp_path) -> None:
    tests = _tests(tmp_path, "+deid_published")
    assert {"deid_gate_k_anonymity", "deid_gate_exact_k_anonymity", "deid_gate_max_suppression",
            "deid_gate_column_caps", "deid_gate_row_count", "deid_published_row_count"} <= tests
