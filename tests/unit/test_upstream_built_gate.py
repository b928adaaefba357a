"""The gate upstream_built (macros/gates/upstream_built_gate.sql; review 10, A1, A1b, A1c),
rendered with Jinja outside dbt over a graph shaped like the discharge release's.

On e1bf34b the gate table deid_gate_results, computed in an invocation that did not build the
working tables it reads (`dbt build -s deid_suppressed+`, `dbt run -s deid_gate_results
deid_diagnostics deid_published` after a preview `dbt run -s deid_hierarchy --vars <other>`),
verified and recorded them as they were: a preview's hierarchy (A1: a second version published
with 4 records below k in the combined view), a preview's input snapshot (A1b), a preview's
small-area flags (A1c). There was no such gate (the macro did not exist). Now the gate table
fails unless every working model upstream of it was built in its invocation (or named by a
segmented build's selection, as for the claims and text verdict inputs), naming the models not
built and `dbt build -s +deid_published`.

The whole chain in dbt: tests/integration/test_fail_closed_dbt.py
(test_a_gate_table_over_a_preview_hierarchy_is_refused).
"""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from dbt_deid.settings_schema import RELEASE_NAME_PATTERN
from tests.macro_render import macro_caller

ROOT = Path(__file__).resolve().parents[2]
FILES = [ROOT / "macros" / "gates" / "upstream_built_gate.sql",
         ROOT / "macros" / "releases" / "upstream_not_built.sql",
         ROOT / "macros" / "releases" / "releases.sql"]
ENV = "DBT_DEID_SEGMENTED_SELECTION"
RUNNER_ENV = "DBT_DEID_PYTHON_NODES_RUNNER"
#: model -> the models it depends on: the package's discharge release, as its models declare
#: them (the gate table's depends_on, models/deid_*.sql), over the project's source model
DISCHARGE = {
    "deid_release_plan": [],
    "deid_input": ["discharge_abstracts"],
    "deid_hierarchy": ["deid_release_plan"],
    "deid_small_area_inputs": ["deid_input"],
    "deid_small_areas": ["deid_small_area_inputs"],
    "deid_generalized": ["deid_input", "deid_hierarchy", "deid_release_plan"],
    "deid_patterns": ["deid_generalized"],
    "deid_suppression_map": ["deid_patterns"],
    "deid_suppressed": ["deid_generalized", "deid_suppression_map"],
    "deid_suppressed_patterns": ["deid_suppressed"],
    "deid_gate_results": ["deid_small_areas",
                          "deid_hierarchy", "deid_release_plan", "deid_input",
                          "deid_suppressed_patterns", "stg_hierarchy"],
    "deid_diagnostics": ["deid_gate_results"],
    "deid_published": ["deid_diagnostics", "deid_gate_results"],
}
#: the project's own models: the source and a hierarchy the release refs (not working tables)
PROJECT = {"discharge_abstracts": [], "stg_hierarchy": []}
WORKING = sorted(set(DISCHARGE) - {"deid_gate_results", "deid_diagnostics", "deid_published"})


def _uid(name: str, release: str | None = None) -> str:
    if name in PROJECT:
        return f"model.proj.{name}"
    return f"model.proj.{release}__{name}" if release else f"model.dbt_deid.{name}"


def _graph(release: str | None = None) -> SimpleNamespace:
    """The release's graph: the package's models (release None) or an extra release's
    `<release>__<model>` models in the root project `proj`."""
    nodes = {}
    for name, deps in {**DISCHARGE, **PROJECT}.items():
        uid = _uid(name, release)
        nodes[uid] = SimpleNamespace(
            unique_id=uid, name=uid.split(".")[-1], resource_type="model",
            package_name=uid.split(".")[1], depends_on=SimpleNamespace(nodes=[
                _uid(d, release) for d in deps]))
    return SimpleNamespace(nodes=nodes)


def _gate(selected: list[str], release: str | None = None, env: str = "",
          adapter: str = "duckdb", which: str = "build",
          runner: str | None = None) -> tuple[dict, list[str]]:
    """gate_upstream_built_result() as the gate table computes it, `selected` (model names)
    the invocation's selection; returns (the result, the lines logged)."""
    logged: list[str] = []
    gate = _uid("deid_gate_results", release)

    def context(call):
        return {
            "graph": _graph(release),
            "model": SimpleNamespace(unique_id=gate, name=gate.split(".")[-1]),
            "this": SimpleNamespace(identifier=gate.split(".")[-1]),
            "selected_resources": [_uid(n, release) for n in selected],
            "env_var": lambda name, default=None: (
                env if name == ENV else runner if name == RUNNER_ENV and runner is not None
                else default),
            "flags": SimpleNamespace(WHICH=which),
            "adapter": SimpleNamespace(type=lambda: adapter,
                                       dispatch=lambda name, package: call("default__" + name)),
            "modules": SimpleNamespace(re=re),
            "log": lambda msg, info=False: logged.append(msg),
            "dbt_deid": SimpleNamespace(
                own=lambda dispatched: dispatched,
                upstream_not_built=call("upstream_not_built"),
                _split_release_node=call("_split_release_node"),
                _release_name_pattern=lambda: RELEASE_NAME_PATTERN,
                release_node_name=lambda base: f"{release}__{base}" if release else base),
        }
    return macro_caller(FILES, context)("gate_upstream_built_result")(), logged


def test_a_whole_build_passes() -> None:
    """`dbt build -s +deid_published`: every working model built with the gate table."""
    result, _ = _gate([*DISCHARGE, *PROJECT])
    assert result == {"gate": "upstream_built", "passed": True, "failures": 0, "message":
                      "every working model upstream of the gate table was built with it,"
                      " in this build"}
    # the project's own models (the source, a hierarchy it refs) need not be rebuilt
    assert _gate([*DISCHARGE])[0]["passed"]


@pytest.mark.parametrize(("selected", "not_built"), [
    # A1 (review 10): after a preview `dbt run -s deid_hierarchy --vars <other rule>`
    (["deid_gate_results", "deid_diagnostics", "deid_published"], WORKING),
    # A1, the most natural command: `dbt build -s deid_suppressed+`
    (["deid_suppressed", "deid_suppressed_patterns", "deid_gate_results",
      "deid_diagnostics", "deid_published"],
     ["deid_generalized", "deid_hierarchy", "deid_input",
      "deid_patterns", "deid_release_plan", "deid_small_area_inputs", "deid_small_areas",
      "deid_suppression_map"]),
    # A1c: the small-area flags of a preview (`dbt run -s deid_small_areas --vars <other areas>`)
    ([n for n in DISCHARGE if n not in ("deid_small_areas", "deid_small_area_inputs")],
     ["deid_small_area_inputs", "deid_small_areas"]),
    # A1b: the input snapshot of a preview (the gate table fingerprints it since session 11)
    ([n for n in DISCHARGE if n != "deid_input"], ["deid_input"]),
])
def test_a_gate_table_over_working_tables_it_did_not_build_fails(selected, not_built) -> None:
    result, _ = _gate(selected)
    assert not result["passed"]
    assert result["failures"] == len(not_built)
    assert ("over working tables it did not build: " + ", ".join(not_built) + " (left by"
            in result["message"]), result["message"]
    assert result["message"].endswith("(dbt build -s +deid_published)")


def test_an_extra_release_needs_its_own_models() -> None:
    """An extra release's models are the root project's `<release>__deid_*` nodes: they are
    working models too; the project's source model is not."""
    result, _ = _gate(["deid_gate_results", "deid_published"], release="it_second")
    assert not result["passed"]
    assert "it_second__deid_hierarchy" in result["message"]
    assert "discharge_abstracts" not in result["message"]
    assert result["message"].endswith("(dbt build -s +it_second__deid_published)")
    assert _gate([*DISCHARGE], release="it_second")[0]["passed"]


def test_a_segment_of_a_runner_build_on_an_adapter_with_python_models_passes() -> None:
    """`python -m dbt_deid build --python-nodes runner` on DuckDB segments the build too (the
    runner computes the Python models): it sets RUNNER_ENV beside the selection, and the segment
    building the gate table passes (whole suite on 630926f: test_cli_build_dbt refused its own
    build, "failed: upstream_built"). The selection alone stays ignored there."""
    everything = ",".join(_uid(n) for n in [*DISCHARGE, *PROJECT])
    assert _gate(["deid_gate_results"], env=everything, runner="1")[0]["passed"]
    assert not _gate(["deid_gate_results"], env=everything, runner="0")[0]["passed"]
    assert not _gate(["deid_gate_results"], env=everything)[0]["passed"]


def test_a_segment_of_a_segmented_build_passes() -> None:
    """`python -m dbt_deid build` on PostgreSQL: the gate table's segment selects it alone;
    the whole build's selection (DBT_DEID_SEGMENTED_SELECTION) names its upstream."""
    everything = ",".join(_uid(n) for n in DISCHARGE)
    result, logged = _gate(["deid_gate_results"], env=everything, adapter="postgres")
    assert result["passed"], result["message"]
    assert len(logged) == 1 and "segmented build" in logged[0]


@pytest.mark.parametrize(("adapter", "which", "reason"), [
    ("duckdb", "build", "adapter duckdb has dbt Python models"),
    ("postgres", "run", "a `dbt run`, not a segment"),
])
def test_a_segmented_selection_outside_a_segment_is_ignored(adapter, which, reason) -> None:
    """The variable exported by hand (or left by another build): not a segment (review 9
    final, F3, as for the claims and text verdict inputs)."""
    everything = ",".join(_uid(n) for n in DISCHARGE)
    result, _ = _gate(["deid_gate_results"], env=everything, adapter=adapter, which=which)
    assert not result["passed"]
    assert f"DBT_DEID_SEGMENTED_SELECTION ignored: {reason}" in result["message"]
