"""A project's node named like a release node is refused, and `dbt clone` of a publish model
too (review 7, findings 1, 2 and 6; docs/overrides.md). Rendered outside dbt: the graph is a
stand-in, no warehouse.

* 1: a one-argument ``ref('deid_gate_results')`` in a package model searches the root project
  first unless ``require_ref_searches_node_package_before_root`` is set: on b31f4c4 a root model
  ``deid_gate_results`` saying "passed" published an unsuppressed release.
* 2: with the flag set, a root model ``deid_release_gate`` made ``_graph_relation`` return none,
  which the line checks read as "nothing to check": a re-keyed release published.
* 6: ``dbt clone -s deid_published --state ...`` replaced the published table by a view over
  itself, without the gates or a history row (the real clone: test_overrides_dbt.py).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.macro_render import CompilerError as _Refused
from tests.macro_render import macro_caller
from tests.macro_render import raise_compiler_error as _raise

ROOT = Path(__file__).resolve().parents[2]


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


def _call(files: list[str], nodes: list[SimpleNamespace]):
    def context(call):
        return {
            "execute": True, "project_name": "consumer",
            "graph": SimpleNamespace(nodes={n.unique_id: n for n in nodes}, sources={}),
            "exceptions": SimpleNamespace(raise_compiler_error=_raise),
            "api": SimpleNamespace(Relation=SimpleNamespace(create=lambda **kw: kw)),
            "dbt_deid": SimpleNamespace(_split_release_node=_split),
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


def _pre_hook(publish: str, which: str) -> str:
    """The publish models' pre-hook under ``which`` (dbt's flags.WHICH), for ``publish``."""
    def context(call):
        return {"execute": True, "flags": SimpleNamespace(WHICH=which),
                "this": SimpleNamespace(identifier=publish),
                "exceptions": SimpleNamespace(raise_compiler_error=_raise)}
    return macro_caller([ROOT / "macros/publish/refuse_publish_clone.sql"],
                        context)("refuse_publish_clone")()


@pytest.mark.parametrize("publish", ["deid_published", "it_second__deid_published",
                                     "deid_claims_published_claims", "deid_text_published"])
def test_dbt_clone_of_a_publish_model_is_refused_naming_it(publish) -> None:
    with pytest.raises(_Refused) as refused:
        _pre_hook(publish, "clone")
    message = str(refused.value)
    assert ("dbt_deid [clone]: nothing was cloned: `dbt clone` would replace the published"
            f" {publish} ") in message
    assert "--exclude config.materialized:deid_publish" in message
    assert "docs/overrides.md" in message
    for which in ("run", "build", "retry", "compile"):
        assert _pre_hook(publish, which) == ""


def test_every_publish_model_sets_the_clone_pre_hook() -> None:
    """The default and extra releases' publish model (one body, release_models.sql) and the
    claims and text ones."""
    hook = 'pre_hook="{{ dbt_deid.refuse_publish_clone() }}"'
    for path in ["macros/releases/release_models.sql",
                 "models/publish/deid_claims_published_claims.sql",
                 "models/publish/deid_claims_published_patients.sql",
                 "models/publish/deid_text_published.sql"]:
        text = (ROOT / path).read_text()
        configs = re.findall(r"{{ config\((.*?)\) }}\n", text, re.S)
        assert [c for c in configs if "materialized='deid_publish'" in c and hook in c], path


def _hook_results(publish: str, pre: list[dict], post: list[dict],
                  sql_header: str | None = None) -> list[dict]:
    """publish_hook_results for a publish model ``publish`` with dbt's hook dicts."""
    def context(call):
        return {"this": SimpleNamespace(identifier=publish),
                "local_md5": lambda text: hashlib.md5(text.encode()).hexdigest(),
                "dbt_deid": SimpleNamespace(configured_sql_label=call("configured_sql_label"))}
    return macro_caller([ROOT / "macros/publish/publish_hook_results.sql"],
                        context)("publish_hook_results")(pre, post, sql_header)


def _md5(text: str) -> str:
    return hashlib.md5(text.encode()).hexdigest()[:8]


OWN_HOOK = {"sql": "{{ dbt_deid.refuse_publish_clone() }}", "transaction": True}


@pytest.mark.parametrize("publish", ["deid_published", "it_second__deid_published",
                                     "deid_claims_published_claims", "deid_text_published"])
def test_a_project_hook_on_a_publish_model_refuses_it(publish) -> None:
    """Review 8, finding 1: a project's `+post-hook` ran after the gates inside the publish
    transaction. Only the package's own clone pre-hook is allowed; any other hook (pre or post,
    inside or outside the transaction, the model's or a project-wide one) is one failed gate
    naming the model and each hook by its setting, position and a hash of its text, never its
    SQL (review 8 final, R7: on 45d0c4e the hook's SQL, up to 200 characters, went into the
    message, the history's gates_json and the log, and a hook filtering on a quasi-identifier
    holds its value)."""
    assert _hook_results(publish, [OWN_HOOK], []) == []
    assert _hook_results(publish, [], []) == []
    spaced = {**OWN_HOOK, "sql": " {{  dbt_deid.refuse_publish_clone() }}\n"}
    assert _hook_results(publish, [spaced], []) == []
    delete = "delete from {{ this }} where province = 'PE' and age = 97"
    found = _hook_results(publish, [OWN_HOOK, {"sql": "select 1", "transaction": False}],
                          [{"sql": delete, "transaction": True}, {"sql": "", "transaction": True}])
    assert len(found) == 1 and found[0]["gate"] == "publish_hooks"
    assert not found[0]["passed"] and found[0]["failures"] == 3
    message = found[0]["message"]
    assert message.startswith(f"model {publish} has 3 hook(s) dbt_deid does not set:")
    assert f"+pre-hook #2 (md5 {_md5('select 1')}) (outside the transaction)" in message
    assert f"+post-hook #1 (md5 {_md5(delete)}); +post-hook #2 (md5 {_md5('')})" in message
    assert "'PE'" not in message and "age = 97" not in message and "select 1" not in message
    assert f"models: dbt_deid: ... {publish}" in message and "docs/overrides.md" in message


def test_a_sql_header_on_a_publish_model_refuses_it() -> None:
    """Review 8 final, R8: dbt writes a model's `+sql_header` (a project-wide one too) before
    the candidate's create statement, inside the publish step, like a pre-hook; on 45d0c4e it
    was not looked at. Any non-blank header is refused, named without its SQL."""
    header = "delete from main.discharge_abstracts where province = 'PE';"
    found = _hook_results("deid_published", [OWN_HOOK], [], header)
    assert len(found) == 1 and found[0]["gate"] == "publish_hooks" and not found[0]["passed"]
    assert found[0]["failures"] == 1
    message = found[0]["message"]
    assert f"has 1 hook(s) dbt_deid does not set: +sql_header (md5 {_md5(header)})" in message
    assert "'PE'" not in message and "`+sql_header`" in message
    assert _hook_results("deid_published", [OWN_HOOK], [], "  \n") == []
    assert _hook_results("deid_published", [OWN_HOOK], [], None) == []
