"""prepare_release_tables, the package's on-run-start hook that replaced the model
deid_release_history_init (issue 33, item 3: one node less per project), rendered outside dbt.

The model ran before every publish model (they depended on it): it checked the extra releases
and created the release histories and the project's per-record store, so the publish models of
several releases on several threads only ever append. The hook does the same before any node,
in the invocations that build a release's model (`dbt run -s deid_published` alone too, which
did not select the model), never under `--empty` nor in the commands that build nothing (dbt
runs no on-run-start hook under compile, ls, docs generate, parse: dbt/task/run.py, RunTask;
the hook also skips test, seed and snapshot), and raises while dbt renders it, so an error
leaves the invocation before any node (fail closed).
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.macro_render import CompilerError, macro_caller, raise_compiler_error

ROOT = Path(__file__).resolve().parents[2]
MACRO = ROOT / "macros" / "releases" / "prepare_release_tables.sql"
RETRY = ROOT / "macros" / "releases" / "retry_invocation.sql"


def _nodes(releases: bool = True) -> dict:
    nodes = {}
    for package, name, kind in [("dbt_deid", "deid_input", "model"),
                                ("dbt_deid", "deid_published", "model"),
                                ("root", "it_second__deid_published", "model"),
                                ("root", "discharge_abstracts", "seed"),
                                ("root", "some_root_model", "model"),
                                ("dbt_deid", "deid_gate_k_anonymity", "test")]:
        if not releases and (package == "dbt_deid" or "__deid_" in name):
            continue
        uid = f"{kind}.{package}.{name}"
        nodes[uid] = SimpleNamespace(unique_id=uid, resource_type=kind, package_name=package,
                                     name=name)
    return nodes


def _hook(selected: list[str], which: str = "run", empty: bool = False,
          declared: bool = True, execute: bool = True, bad_extra: bool = False,
          command: str | None = None, releases: bool = True,
          overridden: list[str] | None = None) -> list[str]:
    """Render default__prepare_release_tables (with the package's retry_invocation) as dbt
    gives it: ``command`` is invocation_args_dict['invocation_command'] ("dbt " and the
    process's arguments; "dbt <which> ..." unless given); returns what it did, in order."""
    done: list[str] = []

    def check_extra_releases():
        done.append("check_extra_releases")
        if bad_extra:
            raise_compiler_error("dbt_deid setting 'deid_releases.it_second': the release has"
                                 " no models in this project")

    def split(name: str):
        return name.split("__", 1) if "__deid_" in name else None

    def context(call):
        return {
            "execute": execute, "flags": SimpleNamespace(WHICH=which, EMPTY=empty),
            "invocation_args_dict": {"which": which,
                                     "invocation_command": command or f"dbt {which} -s x"},
            "selected_resources": [p if p.count(".") == 2 else f"model.{p}" for p in selected],
            "graph": SimpleNamespace(nodes=_nodes(releases)),
            "run_query": lambda sql: done.append("begin"),
            "adapter": SimpleNamespace(commit=lambda: done.append("commit")),
            "dbt_deid": SimpleNamespace(
                any_release_declared=lambda: declared, _split_release_node=split,
                retry_invocation=call("default__retry_invocation"),
                check_extra_releases=check_extra_releases,
                release_history_relations=lambda: ["main.deid_release_history",
                                                   "other.deid_release_history"],
                ensure_release_history=lambda h: done.append(f"history {h}"),
                ensure_release_stores=lambda: done.append("stores"),
                overrides_found=lambda: list(overridden or [])),
        }
    assert call_hook(context) == ""
    return done


def call_hook(context) -> str:
    return macro_caller([MACRO, RETRY], context)("default__prepare_release_tables")()


CREATED = ["check_extra_releases", "begin", "history main.deid_release_history",
           "history other.deid_release_history", "stores", "commit"]


def test_the_hook_creates_the_tables_before_a_publish_model_selected_alone() -> None:
    """`dbt run -s deid_published` (the model deid_release_history_init was not selected by
    it, so the publish ran without it), an extra release's publish model, `dbt build` of any
    subset with a model of a release: the extra releases checked, every history and the
    stores created, in one transaction committed before any node runs."""
    assert _hook(["dbt_deid.deid_published"]) == CREATED
    assert _hook(["root.it_second__deid_published"], "build") == CREATED
    assert _hook(["dbt_deid.deid_input"], "build") == CREATED


def test_the_hook_creates_the_tables_in_a_retry_as_dbt_gives_it() -> None:
    """`dbt retry` (review 13 final, L1): dbt 1.11 runs the retried command's task, so
    flags.WHICH is 'run' or 'build' (never 'retry'), and never sets selected_resources ([] in
    a fresh process; the previous invocation's in a dbtRunner session). On main (a669ecb) the
    hook created nothing there. Now a retry acts when the project has a release model, told
    by the command line, `dbt --debug retry` too, or by the empty selection (dbtRunner's
    retry first in its process: the command line is the host program's)."""
    assert _hook([], "run", command="dbt retry --profiles-dir .") == CREATED
    assert _hook([], "build", command="dbt --log-level debug retry") == CREATED
    assert _hook([], "run", command="dbt ") == CREATED
    # the previous invocation's selection (dbtRunner) with the retry's command line
    assert _hook(["root.some_root_model"], "run", command="dbt retry") == CREATED
    assert _hook([], "run", command="dbt retry", empty=True) == ["check_extra_releases"]
    assert _hook([], "run", command="dbt retry", releases=False) == []
    assert _hook([], "test", command="dbt retry") == []
    # a model named retry is no retry
    assert _hook(["root.some_root_model"], "run", command="dbt run -s retry") == []


def test_the_hook_creates_nothing_under_empty_or_commands_that_build_no_release() -> None:
    """`--empty` checks the extra releases and creates nothing; test, seed, snapshot (and
    compile, ls, docs generate, parse, where dbt runs no hook) nothing; nor a selection
    without a model of a release, nor a project without a release."""
    assert _hook(["dbt_deid.deid_published"], "build", empty=True) == ["check_extra_releases"]
    for which in ("test", "seed", "snapshot", "compile", "list", "generate", "parse", "clone",
                  "run-operation"):
        assert _hook(["dbt_deid.deid_published"], which) == [], which
    assert _hook(["root.some_root_model", "seed.root.discharge_abstracts",
                  "test.dbt_deid.deid_gate_k_anonymity"], "build") == []
    assert _hook(["dbt_deid.deid_published"], declared=False) == []
    # while dbt parses (execute false): the extra releases' names only (their models are
    # checked when executing), so `dbt parse` fails on a hostile release name
    assert _hook(["dbt_deid.deid_published"], execute=False) == ["check_extra_releases"]


def test_a_bad_extra_release_fails_the_hook_before_anything_is_created() -> None:
    """An extra release declared without its models raises while dbt renders the hook: dbt
    leaves the invocation before any node (an error in a hook's SQL would not stop the nodes
    unless the root project sets skip_nodes_if_on_run_start_fails)."""
    with pytest.raises(CompilerError, match="has no models in this project"):
        _hook(["dbt_deid.deid_published"], bad_extra=True)


def test_the_package_declares_the_hook_after_its_checks() -> None:
    """dbt_project.yml: the hook runs after the layout and sample-mode checks (dbt runs a
    package's hooks in their list's order; dbt 1.11 runs the root project's before them)."""
    import yaml

    hooks = yaml.safe_load((ROOT / "dbt_project.yml").read_text())["on-run-start"]
    assert [h.split("(")[0].split(".")[-1] for h in hooks] == [
        "check_working_schema_layout", "check_sample_mode", "prepare_release_tables"]


def test_the_hook_leaves_a_release_with_overriding_models_to_the_publish_step() -> None:
    """A root model named like a release model (test_overrides_dbt): the hook's lookups by
    name stopped on the ambiguous name before any node ("... is ambiguous ...") and the
    publish step's refusal naming each model with its file (and its history row) never came.
    The hook now prepares nothing and the publish step refuses as before."""
    found = ["root.deid_gate_results (models/deid_gate_results.sql) has the name of the"
             " dbt_deid model deid_gate_results"]
    assert _hook(["dbt_deid.deid_published"], overridden=found) == []
    assert _hook(["dbt_deid.deid_published"]) == CREATED
