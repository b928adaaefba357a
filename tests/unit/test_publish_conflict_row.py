"""A publish that DuckDB's write-write conflict rolled back still gets its history row.

Two releases of one source published by one build on several threads: the second's update of
its line's row in deid_line_locks fails with DuckDB's write-write conflict ("TransactionContext
Error: Conflict on update!"), inside the transaction that would have written its history row,
so no row recorded the attempt (docs/combined-lines.md). The package's on-run-end hook
(record_skipped_releases, macros/releases/skipped_publish.sql) now appends a 'refused' row for
such a publish model, outside the rolled-back transaction, unless the model wrote one itself;
the warehouse's message is never copied (it is named, not stored). Rendered outside dbt with
a fake run result.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from tests.macro_render import macro_caller

ROOT = Path(__file__).resolve().parents[2]


def _result(status: str, message: str, materialized: str = "deid_publish",
            name: str = "it_second__deid_published") -> SimpleNamespace:
    node = SimpleNamespace(name=name, unique_id=f"model.x.{name}", package_name="x",
                           resource_type="model", config={"materialized": materialized},
                           depends_on=SimpleNamespace(nodes=[]))
    return SimpleNamespace(node=node, status=status, message=message, failures=None)


def _appended(results: list) -> list[tuple]:
    rows: list[tuple] = []

    def context(call):
        return {
            "execute": True, "flags": SimpleNamespace(WHICH="run"),
            "graph": SimpleNamespace(nodes={}),
            "dbt_deid": SimpleNamespace(
                _ancestors=lambda uid: [],
                _publish_write_conflict=call("_publish_write_conflict"),
                is_publish_node=call("is_publish_node"),
                _split_release_node=lambda n: n.split("__", 1) if "__deid_" in n else None,
                _append_skipped_release=lambda node, causes, what="": rows.append(
                    (node.name, causes, what))),
        }
    call = macro_caller([ROOT / "macros/releases/skipped_publish.sql",
                         ROOT / "macros/releases/publish_node.sql"], context)
    call("default__record_skipped_releases")(results)
    return rows


def test_a_publish_rolled_back_by_a_write_write_conflict_gets_a_refused_row() -> None:
    secret = "TransactionContext Error: Conflict on update! (row 'Z9 value')"
    rows = _appended([_result("error", f"Runtime Error in model x\n  {secret}")])
    assert len(rows) == 1
    name, causes, what = rows[0]
    assert name == "it_second__deid_published" and "write-write conflict" in what
    assert [c["gate"] for c in causes] == ["write_conflict"]
    message = causes[0]["message"]
    assert "nothing was published" in message and "--threads 1" in message
    assert "Z9" not in message and "Conflict on update" not in message  # named, not copied


@pytest.mark.parametrize("status, message, materialized, name", [
    # not a publish model
    ("error", "TransactionContext Error: Conflict on update!", "table", "it_second__deid_input"),
    ("success", "OK", "deid_publish", "it_second__deid_published"),
])
def test_other_results_get_no_row_from_it(status, message, materialized, name) -> None:
    assert _appended([_result(status, message, materialized, name)]) == []


@pytest.mark.parametrize("materialized", ["deid_publish", "table"])
def test_a_publish_model_that_errored_before_its_gates_gets_a_refused_row(materialized) -> None:
    """Review 8, F3: a publish model that raised while dbt rendered it (here a project's
    `+materialized: table`, which the model refuses; or a replaced macro) never reached the
    materialization's history row. It gets a 'refused' row, gate build_error, naming the model,
    never the error's text; found by its name, not only its materialization. (A publish model
    refused by its gates wrote its row: _append_skipped_release then appends none.)"""
    secret = "Compilation Error in model x: must be materialized as deid_publish ('Z9 value')"
    rows = _appended([_result("error", secret, materialized)])
    assert len(rows) == 1
    name, causes, what = rows[0]
    assert name == "it_second__deid_published" and what == "failed with an error"
    assert [c["gate"] for c in causes] == ["build_error"]
    message = causes[0]["message"]
    assert "it_second__deid_published failed before its gates ran" in message
    assert "nothing was published" in message
    assert "Z9" not in message and "materialized" not in message  # named, not copied
