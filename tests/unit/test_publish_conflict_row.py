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


def _result(status: str, message: str, materialized: str = "deid_publish") -> SimpleNamespace:
    name = "it_second__deid_published"
    node = SimpleNamespace(name=name, unique_id=f"model.x.{name}",
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
                _append_skipped_release=lambda node, causes, what="": rows.append(
                    (node.name, causes, what))),
        }
    call = macro_caller([ROOT / "macros/releases/skipped_publish.sql"], context)
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


@pytest.mark.parametrize("status, message, materialized", [
    ("error", "Compilation Error in model x: release refused", "deid_publish"),  # its own row
    ("error", "TransactionContext Error: Conflict on update!", "table"),  # not a publish model
    ("success", "OK", "deid_publish"),
])
def test_other_results_get_no_row_from_it(status, message, materialized) -> None:
    assert _appended([_result(status, message, materialized)]) == []
