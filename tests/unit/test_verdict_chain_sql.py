"""The verdict binding's build-time checks (macros/gates/verdict_binding.sql; review 9 final,
F3, F6, F8), rendered with Jinja outside dbt.

* verdict_chain_check honoured DBT_DEID_SEGMENTED_SELECTION in any dbt invocation, on any
  adapter (F3): a user or a stale shell export skipped the check that the fingerprinted
  relations were computed from each other. Now only in a segment of a segmented build: an
  adapter without dbt Python models, `dbt build`, the variable naming the verdict-inputs model
  itself and every node the invocation selected.
* verdict_chain_check stopped silently after 10,000 graph steps (F6): now it walks the whole
  graph upstream and raises if work is left.
* a verdict relation whose columns dbt cannot list was fingerprinted by its row count only
  (F8): verdict_inputs_sql raises and verdict_bound_result refuses, naming the relation.

The whole chain in dbt: tests/integration/test_text_risk_dbt.py and test_lola_dbt.py.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from tests.macro_render import CompilerError, macro_caller, raise_compiler_error

ROOT = Path(__file__).resolve().parents[2]
FILE = ROOT / "macros" / "gates" / "verdict_binding.sql"
#: the walk verdict_chain_check shares with the gate upstream_built (review 10, A1)
WALK = ROOT / "macros" / "releases" / "upstream_not_built.sql"
RELEASES = ROOT / "macros" / "releases" / "releases.sql"
ENV = "DBT_DEID_SEGMENTED_SELECTION"
INPUTS = "model.dbt_deid.deid_text_verdict_inputs"
UPSTREAM = ["model.dbt_deid.deid_text_documents", "model.dbt_deid.deid_text_detections",
            "model.dbt_deid.deid_text_quasi_counts"]


def _node(uid: str, deps: list[str]) -> SimpleNamespace:
    package, name = uid.split(".")[1], uid.split(".")[-1]
    return SimpleNamespace(unique_id=uid, name=name, resource_type="model", package_name=package,
                           depends_on=SimpleNamespace(nodes=deps))


def _graph(chain: int = 0) -> SimpleNamespace:
    """The verdict inputs over the staged models, the documents over a project model that is
    `chain` project models above the project's input (0: the documents read it directly)."""
    nodes = [_node(INPUTS, UPSTREAM[1:]),
             _node(UPSTREAM[1], [UPSTREAM[0]]), _node(UPSTREAM[2], [UPSTREAM[0]])]
    first = "model.proj.step_0" if chain else "model.proj.text_input"
    nodes.append(_node(UPSTREAM[0], [first]))
    for i in range(chain):
        above = f"model.proj.step_{i + 1}" if i + 1 < chain else "model.proj.text_input"
        nodes.append(_node(f"model.proj.step_{i}", [above]))
    nodes.append(_node("model.proj.text_input", []))
    return SimpleNamespace(nodes={n.unique_id: n for n in nodes})


def _check(graph: SimpleNamespace, selected: list[str], env: str = "", adapter: str = "postgres",
           which: str = "build") -> list[str]:
    """verdict_chain_check('text') as deid_text_verdict_inputs runs it; returns the log lines."""
    logged: list[str] = []
    context = {
        "env_var": lambda name, default=None: env if name == ENV else default,
        "graph": graph,
        "model": SimpleNamespace(unique_id=INPUTS, name="deid_text_verdict_inputs"),
        "selected_resources": selected,
        "flags": SimpleNamespace(WHICH=which),
        "adapter": SimpleNamespace(type=lambda: adapter),
        "exceptions": SimpleNamespace(raise_compiler_error=raise_compiler_error),
        "log": lambda msg, info=False: logged.append(msg),
    }
    macro_caller([FILE, WALK, RELEASES], lambda call: {**context, "dbt_deid": walk_namespace(call),
                                                       "modules": SimpleNamespace(re=re)})(
        "verdict_chain_check")("text")
    return logged


def walk_namespace(call) -> SimpleNamespace:
    """The ``dbt_deid`` namespace upstream_not_built needs (its default form, and the split of an
    extra release's node names from releases.sql)."""
    from dbt_deid.settings_schema import RELEASE_NAME_PATTERN

    return SimpleNamespace(upstream_not_built=call("default__upstream_not_built"),
                           _split_release_node=call("_split_release_node"),
                           _release_name_pattern=lambda: RELEASE_NAME_PATTERN)


ALL = ",".join([INPUTS, *UPSTREAM])


def test_the_whole_chain_selected_passes() -> None:
    _check(_graph(), [INPUTS, *UPSTREAM], adapter="duckdb")


def test_a_part_of_the_chain_is_refused() -> None:
    with pytest.raises(CompilerError, match="not selected: deid_text_detections,"
                                            " deid_text_documents, deid_text_quasi_counts"):
        _check(_graph(), [INPUTS], adapter="duckdb")


@pytest.mark.parametrize("adapter", ["duckdb", "snowflake", "databricks", "bigquery"])
def test_the_segmented_selection_is_ignored_where_dbt_builds_python_models(adapter: str) -> None:
    """F3: `DBT_DEID_SEGMENTED_SELECTION=... dbt run -s deid_text_verdict_inputs` on DuckDB (on
    c058d1b: passed, the check skipped). No segmented build runs there."""
    with pytest.raises(CompilerError, match=f"{ENV} ignored: adapter {adapter}"):
        _check(_graph(), [INPUTS], env=ALL, adapter=adapter)


def test_a_stale_segmented_selection_is_ignored() -> None:
    """F3 on PostgreSQL: the variable does not name the verdict-inputs model (exported by
    another build with another selection), the invocation is a `dbt run`, or it selects nodes
    the variable does not name: not a segment of a build that selected the chain (on c058d1b:
    all three passed)."""
    with pytest.raises(CompilerError, match=f"{ENV} ignored: it does not name"):
        _check(_graph(), [INPUTS], env=",".join(UPSTREAM))
    with pytest.raises(CompilerError, match=f"{ENV} ignored: a `dbt run`"):
        _check(_graph(), [INPUTS], env=ALL, which="run")
    with pytest.raises(CompilerError, match=f"{ENV} ignored: this invocation selects"):
        _check(_graph(), [INPUTS, "model.proj.other"], env=ALL)


def test_a_segment_of_a_segmented_build_passes_and_says_so() -> None:
    logged = _check(_graph(), [INPUTS], env=ALL)
    assert len(logged) == 1 and "segmented build" in logged[0] and ENV in logged[0], logged
    # the whole selection must name every package model upstream
    with pytest.raises(CompilerError, match="not selected: deid_text_quasi_counts"):
        _check(_graph(), [INPUTS], env=",".join([INPUTS, *UPSTREAM[:2]]))


def test_a_long_project_chain_is_walked_to_the_end() -> None:
    """F6: 10,050 project models between the staged documents and the project's input, a
    package model upstream of them not selected: on c058d1b the walk stopped after 10,000
    steps and passed silently. Now the whole graph upstream is walked."""
    graph = _graph(chain=10_050)
    graph.nodes["model.proj.text_input"].depends_on.nodes = ["model.dbt_deid.deid_text_seed"]
    graph.nodes["model.dbt_deid.deid_text_seed"] = _node("model.dbt_deid.deid_text_seed", [])
    with pytest.raises(CompilerError, match="not selected: deid_text_seed"):
        _check(graph, [INPUTS, *UPSTREAM], adapter="duckdb")


class _Rel:
    def __init__(self, schema: str, identifier: str) -> None:
        self.database, self.schema, self.identifier = "db", schema, identifier
        self.type = "table"

    def __str__(self) -> str:
        return f"{self.schema}.{self.identifier}"


def _binding(columns: dict[str, list[str]]) -> Any:
    """The binding macros with one bound relation, `main.text_documents`, and the columns dbt
    lists per relation."""
    docs = _Rel("main", "text_documents")
    inputs = _Rel("work", "deid_text_verdict_inputs")

    def context(call):
        return {
            "execute": True, "invocation_id": "inv-1",
            "flags": SimpleNamespace(WHICH="compile"),
            "config": SimpleNamespace(get=lambda key, default=None: (
                "table" if key == "materialized" else default)),
            "model": SimpleNamespace(unique_id=INPUTS, name="deid_text_verdict_inputs"),
            "ref": lambda package, name: inputs,
            "run_query": lambda sql: SimpleNamespace(
                rows=[("input:documents", 3, "h", "md5", "inv-1")]),
            "adapter": SimpleNamespace(
                get_relation=lambda db, schema, name: _Rel(schema, name),
                get_columns_in_relation=lambda rel: [
                    SimpleNamespace(name=c) for c in columns.get(str(rel), [])]),
            "exceptions": SimpleNamespace(raise_compiler_error=raise_compiler_error),
            "dbt": SimpleNamespace(type_string=lambda: "varchar", type_bigint=lambda: "bigint"),
            "dbt_deid": SimpleNamespace(
                verdict_relations=lambda kind: [("input:documents", docs)],
                verdict_models=lambda kind: [],
                verdict_chain_check=lambda kind: None,
                _compile_only_command=lambda: False,
                kind_settings_md5=lambda kind: "md5",
                literal=lambda v: "'" + str(v) + "'",
                table_fingerprint_sql=lambda rel, cols: f"select fp({', '.join(cols)}) from {rel}",
                table_fingerprint=lambda rel, cols=None: {"rows": 3, "hash": "h"}),
        }
    return macro_caller([FILE], context)


def test_a_relation_without_listable_columns_is_not_fingerprinted() -> None:
    """F8: dbt lists no column of main.text_documents (a table it cannot introspect): on
    c058d1b verdict_inputs_sql fingerprinted zero columns (the row count only) and
    verdict_bound_result compared that with itself (passed)."""
    ok = _binding({"main.text_documents": ["doc_id", "text"]})
    assert "fp(doc_id, text)" in ok("default__verdict_inputs_sql")("text")
    assert ok("default__verdict_bound_result")("text")["passed"]
    none = _binding({})
    with pytest.raises(CompilerError, match="main.text_documents.*no column"):
        none("default__verdict_inputs_sql")("text")
    out = none("default__verdict_bound_result")("text")
    assert not out["passed"]
    assert "input:documents (main.text_documents): dbt lists no column" in out["message"]


def test_the_macro_knows_the_runners_adapters_with_python_models() -> None:
    """The adapters where the chain check ignores the segmented selection are the runner's
    PYTHON_MODEL_ADAPTERS (where `python -m dbt_deid build` does not segment)."""
    from dbt_deid.dbt_side.engine.segmented import PYTHON_MODEL_ADAPTERS

    text = WALK.read_text()
    listed = text.split("{%- if adapter.type() in [", 1)[1].split("]", 1)[0]
    assert {a.strip(" '") for a in listed.split(",")} == PYTHON_MODEL_ADAPTERS
