"""Selecting upstream models does not pick up the gate tests (issue 19, item 4): `dbt build -s
+deid_ola_search` used to run the release gates (their tests read the release plan through
`ref()`, so eager indirect selection chose them) against a gate view that build did not
refresh. The gate tests now depend on the model they test only; selecting that model (or the
publish model's parents) still brings them.

Session 13 (issue 33, item 3): the gate tests are on the gate table deid_gate_results (the view
deid_release_gate they were on is gone) and also depend on deid_diagnostics, so that a failing
gate test makes `dbt build` skip the publish model only (dbt's own rule, checked on the parsed
graph below)."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import networkx as nx
import pytest
from dbt.compilation import Linker
from dbt.node_types import NodeType

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


def _skipped_when_failing(manifest: dict[str, Any], tests: dict[str, list[str]]
                          ) -> dict[str, set[str]]:
    """Per test of `tests` (unique id -> the nodes it depends on; the manifest's tests when
    empty), the names of the models `dbt build` skips when it fails: dbt-core's own rule
    (Linker._get_test_edges_2: an edge from a test to every executable node downstream of ALL
    the nodes the test depends on; a failed node's descendants are skipped, runnable.py
    _mark_dependent_errors)."""
    nodes = {**manifest["nodes"], **manifest["sources"]}
    deps = {uid: list(n.get("depends_on", {}).get("nodes", [])) for uid, n in nodes.items()}
    kinds = {uid: n["resource_type"] for uid, n in nodes.items()}
    for uid, parents in tests.items():
        deps[uid], kinds[uid] = parents, "test"
    graph = nx.DiGraph()
    graph.add_nodes_from(deps)
    graph.add_edges_from((p, uid) for uid, parents in deps.items() for p in parents if p in deps)
    stub = SimpleNamespace(
        nodes={uid: SimpleNamespace(resource_type=NodeType(kinds[uid]), depends_on_nodes=deps[uid])
               for uid in deps if not uid.startswith("source.")},
        child_map={uid: list(graph.successors(uid)) for uid in deps})
    graph.add_edges_from(Linker._get_test_edges_2(graph, stub))
    chosen = tests or {uid: deps[uid] for uid in deps if kinds[uid] == "test"}
    return {uid: {d.split(".")[-1] for d in nx.descendants(graph, uid) if kinds[d] == "model"}
            for uid in chosen}


def test_a_failing_gate_test_skips_the_publish_model_only(tmp_path) -> None:
    """`dbt build` with a failing gate test skips deid_published while the diagnostics and the
    report of the refused release are still built (the tests depend on the gate table and
    deid_diagnostics, and only the publish model is downstream of both). The control, a test
    on the gate table alone, would skip the diagnostics and the report too."""
    run = run_dbt(INTEGRATION, ["parse"], tmp_path, ola_release())
    assert run.ok, run.output[-3000:]
    manifest = json.loads((tmp_path / "target" / "manifest.json").read_text())
    gates = {uid: n for uid, n in manifest["nodes"].items()
             if n["resource_type"] == "test" and n["name"].startswith("deid_gate_")
             and n["package_name"] == "dbt_deid"}
    assert {"deid_gate_k_anonymity", "deid_gate_exact_k_anonymity", "deid_gate_max_suppression",
            "deid_gate_column_caps", "deid_gate_row_count", "deid_gate_plan_settings"} <= {
                n["name"] for n in gates.values()}
    skipped = _skipped_when_failing(manifest, {})
    for uid, node in gates.items():
        if node["name"] == "deid_gate_ola_node_found":
            continue
        assert sorted(node["depends_on"]["nodes"]) == [
            "model.dbt_deid.deid_diagnostics", "model.dbt_deid.deid_gate_results"], node["name"]
        assert skipped[uid] == {"deid_published"}, (node["name"], skipped[uid])
    control = _skipped_when_failing(
        manifest, {"test.control": ["model.dbt_deid.deid_gate_results"]})
    assert {"deid_published", "deid_diagnostics", "deid_release_report"} <= control["test.control"]
