"""dbt_deid.built_together (review 9 final, F4): deid_diagnostics takes the plain chain (the map
applied to deid_generalized) only when deid_suppressed, deid_generalized and the map are all
built by this invocation; a map a preview rebuilt is not the checked release's. Rendered
outside dbt."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.macro_render import macro_caller

ROOT = Path(__file__).resolve().parents[2]
BASES = ["deid_suppressed", "deid_generalized", "deid_suppression_map"]


def _built_together(selected: list[str], release: str | None = None, execute: bool = True) -> bool:
    names = BASES + [f"it_second__{b}" for b in BASES]
    nodes = {f"model.pkg.{n}": SimpleNamespace(resource_type="model", name=n) for n in names}

    def context(call):
        return {"execute": execute, "selected_resources": selected,
                "graph": SimpleNamespace(nodes=nodes),
                "dbt_deid": SimpleNamespace(release_node_name=lambda b: f"{release}__{b}"
                                            if release else b)}
    call = macro_caller([ROOT / "macros/releases/built_together.sql"], context)
    return call("default__built_together")(BASES)


@pytest.mark.parametrize("selected, release, expected", [
    ([f"model.pkg.{b}" for b in BASES], None, True),
    # a preview rebuilt the map and deid_generalized; `dbt run -s deid_gate_results+`
    (["model.pkg.deid_gate_results", "model.pkg.deid_diagnostics"], None, False),
    (["model.pkg.deid_suppressed", "model.pkg.deid_generalized"], None, False),
    ([f"model.pkg.{b}" for b in BASES], "it_second", False),
    ([f"model.pkg.it_second__{b}" for b in BASES], "it_second", True),
])
def test_only_models_selected_in_this_invocation_count(selected, release, expected) -> None:
    assert _built_together(selected, release) is expected


def test_false_at_parse_time() -> None:
    assert _built_together([f"model.pkg.{b}" for b in BASES], execute=False) is False


def _spark_built_together(segment: list[str], env: list[str], which: str = "build") -> bool:
    """spark__built_together in deid_diagnostics' segment of a segmented build (`segment`: the
    model names this dbt invocation selects; `env`: DBT_DEID_SEGMENTED_SELECTION's names),
    over the discharge release's graph of tests/unit/test_upstream_built_gate.py."""
    from tests.unit.test_upstream_built_gate import ENV, _graph, _uid
    files = [ROOT / "macros/releases/built_together.sql",
             ROOT / "macros/releases/upstream_not_built.sql",
             ROOT / "macros/releases/releases.sql"]
    listed = ",".join(_uid(n) for n in env)

    def context(call):
        return {
            "execute": True, "graph": _graph(),
            "model": SimpleNamespace(unique_id=_uid("deid_diagnostics"), name="deid_diagnostics"),
            "selected_resources": [_uid(n) for n in segment],
            "env_var": lambda name, default=None: listed if name == ENV else default,
            "flags": SimpleNamespace(WHICH=which),
            "adapter": SimpleNamespace(type=lambda: "spark"),
            "log": lambda msg, info=False: None,
            "dbt_deid": SimpleNamespace(
                own=lambda dispatched: dispatched,
                default__built_together=call("default__built_together"),
                upstream_not_built=call("default__upstream_not_built"),
                _split_release_node=call("_split_release_node"),
                release_node_name=lambda b: b)}
    return macro_caller(files, context)("spark__built_together")(BASES)


#: deid_diagnostics' segment of `python -m dbt_deid build` on Spark: the nodes after the map
#: (computed by the runner between two dbt invocations); deid_generalized was an earlier one's
SEGMENT = ["deid_suppressed", "deid_suppressed_patterns", "deid_gate_results", "deid_diagnostics",
           "deid_published"]


def test_spark_counts_the_segmented_build_selection() -> None:
    """Issue 37 (session 18): on Spark every release is built in segments, so the default was
    false in every Spark build (deid_generalized and the map are never in deid_diagnostics'
    segment) and the diagnostics took the other chain (the original stage's risk CDF a second
    scan of deid_generalized). With the whole build's selection honoured (upstream_not_built's
    conditions), the three models built by this build count."""
    from tests.unit.test_upstream_built_gate import DISCHARGE, PROJECT
    whole = [*DISCHARGE, *PROJECT]
    assert _spark_built_together(SEGMENT, whole) is True


@pytest.mark.parametrize("segment, env, which", [
    # no segmented build: the default's answer (a `dbt run` of the diagnostics alone)
    (["deid_gate_results", "deid_diagnostics", "deid_published"], [], "build"),
    # a preview rebuilt the map in another invocation: this build's selection does not name it
    (SEGMENT, [n for n in SEGMENT] + ["deid_generalized"], "build"),
    # a stale export of a build's selection in a `dbt run`: not a segment
    (SEGMENT, [*SEGMENT, "deid_generalized", "deid_suppression_map"], "run"),
    # the invocation selects a node the variable does not name: not this build's selection
    (SEGMENT, ["deid_suppressed", "deid_gate_results", "deid_diagnostics", "deid_published",
               "deid_generalized", "deid_suppression_map"], "build"),
])
def test_spark_ignores_what_is_not_this_build(segment, env, which) -> None:
    assert _spark_built_together(segment, env, which) is False
