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
