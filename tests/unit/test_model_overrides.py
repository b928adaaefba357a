"""A project's node named like a release node is refused, and `dbt clone` of a publish model
too (review 7, findings 1, 2 and 6; docs/overrides.md). Rendered outside dbt: the graph is a
stand-in, no warehouse.

* 1: a one-argument ``ref('deid_gate_results')`` in a package model searches the root project
  first unless ``require_ref_searches_node_package_before_root`` is set: on b31f4c4 a root model
  ``deid_gate_results`` saying "passed" published an unsuppressed release.
* 2: with the flag set, a root model ``deid_release_gate`` made ``_graph_relation`` return none,
  which the line checks read as "nothing to check": a re-keyed release published.
* 6: ``dbt clone -s deid_published --state ...`` replaced the published table by a view over
  itself, without the gates or a history row.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml

from tests.macro_render import macro_caller

ROOT = Path(__file__).resolve().parents[2]


class _Refused(Exception):
    pass


def _raise(message: str):
    raise _Refused(message)


def _node(name: str, package: str = "dbt_deid", materialized: str = "table",
          kind: str = "model") -> SimpleNamespace:
    return SimpleNamespace(resource_type=kind, package_name=package, name=name, alias=name,
                           schema="main" if materialized == "deid_publish" else "main_deid_work",
                           database="release",
                           original_file_path=f"models/{name}.sql",
                           unique_id=f"{kind}.{package}.{name}",
                           config={"materialized": materialized})


def _split(name: str):
    return name.split("__", 1) if name and "__deid_" in name else None


def _call(files: list[str], nodes: list[SimpleNamespace], which: str = "run",
          selected: list[str] | None = None):
    def context(call):
        return {
            "execute": True, "project_name": "consumer", "flags": SimpleNamespace(WHICH=which),
            "selected_resources": selected or [],
            "graph": SimpleNamespace(nodes={n.unique_id: n for n in nodes}, sources={}),
            "exceptions": SimpleNamespace(raise_compiler_error=_raise),
            "api": SimpleNamespace(Relation=SimpleNamespace(create=lambda **kw: kw)),
            "adapter": SimpleNamespace(dispatch=lambda name, _ns: call("default__" + name)),
            "dbt_deid": SimpleNamespace(
                _split_release_node=_split, own=lambda m: m,
                **{m: call(m) for m in ("check_working_schema_layout",
                                        "refuse_publish_clone", "_working_model_nodes",
                                        "_node_in_schema", "_record_level_first",
                                        "_first_names", "_working_schema_fix")}),
        }
    return macro_caller([ROOT / f for f in files], context)


RELEASE = [_node("deid_gate_results"), _node("deid_release_gate"),
           _node("deid_published", materialized="deid_publish"),
           _node("it_second__deid_release_gate", "consumer"),
           _node("it_second__deid_published", "consumer", "deid_publish"),
           _node("discharge_abstracts", "consumer", kind="seed")]


def _overriding(nodes: list[SimpleNamespace]) -> list[str]:
    return _call(["macros/overrides/overriding_models.sql"], nodes)("overriding_models")()


def test_a_node_named_like_a_release_node_is_named_with_its_package_and_file() -> None:
    assert _overriding(RELEASE) == []
    found = _overriding([*RELEASE, _node("deid_gate_results", "consumer"),
                         _node("deid_release_gate", "consumer", kind="seed"),
                         _node("it_second__deid_release_gate", "other_pkg")])
    assert found == [
        "consumer.deid_gate_results (models/deid_gate_results.sql) has the name of the"
        " dbt_deid model deid_gate_results (a ref() by name may resolve to it)",
        "consumer.deid_release_gate (models/deid_release_gate.sql) has the name of the"
        " dbt_deid model deid_release_gate (a ref() by name may resolve to it)",
        "other_pkg.it_second__deid_release_gate (models/it_second__deid_release_gate.sql)"
        " has the name of the consumer model it_second__deid_release_gate (a ref() by name"
        " may resolve to it)"]


def _graph_relation(nodes: list[SimpleNamespace], name: str):
    return _call(["macros/releases/release_source.sql"], nodes)("_graph_relation")(name)


def test_an_ambiguous_release_node_name_is_refused_not_read_as_absent() -> None:
    """Finding 2: `_graph_relation` returned none for a name two nodes share (a root
    `deid_release_gate`), and the line checks skipped: it now fails naming both."""
    assert _graph_relation(RELEASE, "deid_release_gate")["schema"] == "main_deid_work"
    assert _graph_relation(RELEASE, "deid_nothing") is None
    with pytest.raises(_Refused) as refused:
        _graph_relation([*RELEASE, _node("deid_release_gate", "consumer")], "deid_release_gate")
    assert ("'deid_release_gate' is ambiguous: consumer.deid_release_gate"
            " (models/deid_release_gate.sql), dbt_deid.deid_release_gate" in str(refused.value))
    # an extra release's node is the root project's own, not another package's
    with pytest.raises(_Refused, match="it_third__deid_release_gate' is a node of other_pkg"):
        _graph_relation([*RELEASE, _node("it_third__deid_release_gate", "other_pkg")],
                        "it_third__deid_release_gate")


def _on_run_start(nodes: list[SimpleNamespace], which: str, selected: list[str]) -> None:
    """Every on-run-start hook of dbt_project.yml, as dbt runs them."""
    hooks = yaml.safe_load((ROOT / "dbt_project.yml").read_text())["on-run-start"]
    call = _call(["macros/publish/working_schema_results.sql",
                  "macros/publish/check_working_schema_layout.sql",
                  *(["macros/publish/refuse_publish_clone.sql"]
                    if (ROOT / "macros/publish/refuse_publish_clone.sql").exists() else [])],
                 nodes, which, selected)
    for hook in hooks:
        assert call(re.fullmatch(r"{{ dbt_deid\.(\w+)\(\) }}", hook).group(1))() == ""


@pytest.mark.parametrize("publish", ["deid_published", "it_second__deid_published"])
def test_dbt_clone_of_a_publish_model_is_refused_before_anything_runs(publish) -> None:
    node = next(n for n in RELEASE if n.name == publish)
    with pytest.raises(_Refused) as refused:
        _on_run_start(RELEASE, "clone", [node.unique_id])
    message = str(refused.value)
    assert ("dbt_deid [clone]: nothing was cloned: `dbt clone` would replace the published"
            f" {publish}") in message
    assert "--exclude config.materialized:deid_publish" in message
    assert "docs/overrides.md" in message


def test_a_clone_of_the_working_models_and_other_commands_pass() -> None:
    working = [n.unique_id for n in RELEASE if n.config["materialized"] != "deid_publish"]
    _on_run_start(RELEASE, "clone", working)
    everything = [n.unique_id for n in RELEASE]
    for which in ("run", "build", "test", "compile"):
        _on_run_start(RELEASE, which, everything)
