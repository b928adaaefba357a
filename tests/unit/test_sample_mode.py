"""dbt's --sample never feeds a release (review 8, F5; review 8 final, R4;
macros/publish/sample_mode.sql). Rendered outside dbt: the graph is a stand-in.

On 45d0c4e only the publish step refused under --sample. The claims and text inputs are views
over source()/ref(), so `dbt build --sample ... --exclude tag:deid_publish` (the refusal's own
advice) built working views of the sampled rows, and a later `dbt run -s tag:deid_publish`
without --sample published from them. Now the package's on-run-start hook fails a sampled
invocation that selects any node of a release; the publish step still refuses too."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.macro_render import CompilerError as _Refused
from tests.macro_render import macro_caller
from tests.macro_render import raise_compiler_error as _raise

ROOT = Path(__file__).resolve().parents[2]


def _node(name: str, package: str = "dbt_deid", kind: str = "model",
          path: str = "models/x.sql") -> SimpleNamespace:
    return SimpleNamespace(unique_id=f"{kind}.{package}.{name}", name=name, package_name=package,
                           resource_type=kind, original_file_path=path)


NODES = [_node("deid_claims_input_claims"), _node("deid_published"),
         _node("it_second__deid_input", "it",
               path="models/deid_it_second/it_second__deid_input.sql"),
         _node("it_second__deid_published", "it",
               path="models/deid_it_second/it_second__deid_published.sql"),
         _node("orders", "it"), _node("not_null_deid_published", "dbt_deid", "test")]


def _call(macro: str, sample: str | None, selected: list[str], which: str = "build",
          command: str | None = None, nodes: list[SimpleNamespace] | None = None):
    """Render ``macro`` as dbt gives it: ``command`` is invocation_args_dict['invocation_command']
    ("dbt " and the process's arguments; "dbt <which> ..." unless given)."""
    def split(name: str):
        if "__deid_" not in name:
            return None
        release, base = name.split("__", 1)
        return [release, base]

    def context(call):
        return {
            "execute": True, "flags": SimpleNamespace(WHICH=which),
            "invocation_args_dict": {"which": which,
                                     "invocation_command": command or f"dbt {which} -s x",
                                     **({"sample": sample} if sample else {})},
            "selected_resources": selected,
            "graph": SimpleNamespace(nodes={n.unique_id: n for n in (nodes or NODES)}),
            "exceptions": SimpleNamespace(raise_compiler_error=_raise),
            "dbt_deid": SimpleNamespace(sample_mode=call("sample_mode"), _split_release_node=split,
                                        retry_invocation=call("default__retry_invocation"),
                                        _first_names=lambda names: ", ".join(names)),
        }
    return macro_caller([ROOT / "macros/publish/sample_mode.sql",
                         ROOT / "macros/releases/retry_invocation.sql"], context)(macro)()


WINDOW = "{'start': '2009-01-01', 'end': '2009-04-01'}"


@pytest.mark.parametrize("selected", [["model.dbt_deid.deid_claims_input_claims"],
                                      ["model.it.it_second__deid_input", "model.it.orders"],
                                      ["test.dbt_deid.not_null_deid_published"]])
def test_a_sampled_run_selecting_any_node_of_a_release_fails_before_anything_is_built(
        selected) -> None:
    """On 45d0c4e check_sample_mode did not exist: a sampled run with the publish models
    excluded built the claims working views of the sampled rows."""
    with pytest.raises(_Refused) as refused:
        _call("check_sample_mode", WINDOW, selected)
    message = str(refused.value)
    assert message.startswith("dbt_deid [sample_mode]: nothing was built: dbt build --sample"
                              f" selects {len([s for s in selected if 'orders' not in s])}"
                              " node(s) of a de-identified release")
    assert "--exclude package:dbt_deid" in message
    extra = "model.it.it_second__deid_input" in selected
    assert ("--exclude package:dbt_deid path:models/deid_it_second;" in message) == extra
    assert "orders" not in message


def test_a_sampled_run_of_the_project_alone_and_an_unsampled_run_pass() -> None:
    assert _call("check_sample_mode", WINDOW, ["model.it.orders"]) == ""
    assert _call("check_sample_mode", None, [n.unique_id for n in NODES]) == ""


@pytest.mark.parametrize("selected, command", [([], "dbt retry"), ([], "dbt "),
                                               (["model.it.orders"], "dbt --debug retry")])
def test_a_sampled_retry_fails_before_anything_is_built(selected, command) -> None:
    """`DBT_SAMPLE='3 days' dbt retry` after a failed `dbt run -s deid_published` (review 13
    final, L1): dbt honours DBT_SAMPLE in a retry, runs the retried command's task (flags.WHICH
    'run') and never sets selected_resources ([] in a fresh process, the previous invocation's
    in a dbtRunner session). On main (a669ecb) the hook returned '' and deid_published ran
    sampled. dbt tells no hook which nodes a retry runs: every model of a release counts."""
    with pytest.raises(_Refused) as refused:
        _call("check_sample_mode", WINDOW, selected, "run", command)
    message = str(refused.value)
    assert message.startswith("dbt_deid [sample_mode]: nothing was built: dbt retry (of a run)"
                              " under --sample may rerun any of 4 node(s) of a de-identified"
                              " release")
    assert "--exclude package:dbt_deid path:models/deid_it_second;" in message
    assert "orders" not in message


def test_a_sampled_retry_of_a_project_without_a_release_and_an_unsampled_retry_pass() -> None:
    assert _call("check_sample_mode", WINDOW, [], "run", "dbt retry",
                 nodes=[_node("orders", "it")]) == ""
    assert _call("check_sample_mode", None, [], "run", "dbt retry") == ""
    # a model named retry is no retry
    assert _call("check_sample_mode", WINDOW, ["model.it.orders"], "run",
                 "dbt run -s retry") == ""


def test_the_publish_step_still_refuses_under_sample() -> None:
    """The second line of defence (no on-run-start hook ran, e.g. a project that disabled
    the package's hooks): the publish step's gate sample_mode."""
    results = _call("sample_mode_results", WINDOW, [])
    assert len(results) == 1 and results[0]["gate"] == "sample_mode" and not results[0]["passed"]
    assert "--exclude package:dbt_deid" in results[0]["message"]
    assert _call("sample_mode_results", None, []) == []
