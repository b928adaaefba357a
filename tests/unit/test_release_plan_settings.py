"""The release plan is bound to the settings it was resolved from (review 9 final, F7).

`python -m dbt_deid advise --vars '<a preview>'` rebuilds deid_release_plan (and the map) under
the preview's settings; a later `dbt build -s deid_suppressed+` under the real settings read
that plan: the gate table verified the preview's combinations only, and version 1 was published
without the real protected combinations ever checked. The plan now records the md5 of its
settings (the md5 the gate table and the history record, dbt_deid.settings_md5) and every reader
(dbt_deid._read_release_plan) refuses a plan of other settings. Rendered outside dbt.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from dbt_deid.dbt_side.glue.release import deid_release_plan, release_plan
from tests.macro_render import CompilerError, macro_caller, raise_compiler_error

ROOT = Path(__file__).resolve().parents[2]

REAL = {
    "name": "r", "source": "src", "record_id": "id",
    "quasi_identifiers": {"age": {"level": 0}, "sex": {"level": 0}, "zip": {"level": 0},
                          "diagnosis": {"level": 0}},
    "combinations": [["age", "sex", "zip"], ["age", "diagnosis"]],
    "tau": 0.2, "max_suppression": 0.1,
}
#: the preview `advise --vars` built the plan with: [age, diagnosis] not verified
PREVIEW = {**REAL, "combinations": [["age", "sex", "zip"], ["diagnosis"]]}


def _md5(settings: dict[str, Any]) -> str:
    """dbt_deid.settings_md5(): local_md5(tojson(settings, sort_keys=true))."""
    return hashlib.md5(json.dumps(settings, sort_keys=True).encode()).hexdigest()


class _Result:
    def __init__(self, frame: Any, columns: list[str]) -> None:
        self.column_names = columns
        self.rows = [tuple(r) for r in frame[columns].itertuples(index=False)]


def _read(plan_settings: dict[str, Any], now: dict[str, Any], *, old_table: bool = False,
          which: str = "build") -> Any:
    # the table as the model writes it (the column: test_the_plan_records_...)
    frame = release_plan(plan_settings).assign(settings_md5=_md5(plan_settings))
    columns = ["kind", "item", "position", "column_name"] + ([] if old_table else ["settings_md5"])
    queries: list[str] = []

    def run_query(sql: str) -> _Result:
        queries.append(sql)
        return _Result(frame.sort_values(["kind", "item", "position"]), columns)

    def context(call):
        return {
            "execute": True, "flags": SimpleNamespace(WHICH=which),
            "this": SimpleNamespace(identifier="deid_suppressed"),
            "exceptions": SimpleNamespace(raise_compiler_error=raise_compiler_error),
            "api": SimpleNamespace(Relation=SimpleNamespace(
                create=lambda **kw: f"{kw['schema']}.{kw['identifier']}")),
            "adapter": SimpleNamespace(get_relation=lambda **kw: kw["identifier"]),
            "run_query": run_query, "log": lambda *a, **k: None,
            "dbt_deid": SimpleNamespace(
                settings_md5=lambda: _md5(now), release_settings=lambda: now,
                release_node_name=lambda base: base,
                _compile_only_command=call("_compile_only_command"),
                _release_plan_from_settings=call("_release_plan_from_settings")),
        }
    call = macro_caller([ROOT / "macros/releases/release_plan.sql"], context)
    plan = SimpleNamespace(database="db", schema="work", identifier="deid_release_plan")
    return call("_read_release_plan")(plan)


def test_the_plan_records_the_settings_md5_the_gate_table_records() -> None:
    frame = deid_release_plan(json.dumps(REAL))
    assert set(frame["settings_md5"]) == {_md5(REAL)}


def test_a_plan_of_the_same_settings_is_read() -> None:
    plan = _read(REAL, REAL)
    assert plan["verified"] == [["age", "sex", "zip"], ["age", "diagnosis"]]


def test_a_plan_built_by_a_preview_is_refused_under_the_real_settings() -> None:
    with pytest.raises(CompilerError) as err:
        _read(PREVIEW, REAL)
    message = str(err.value)
    assert "deid_release_plan" in message and "other settings" in message
    assert "dbt build --select +deid_published" in message


def test_a_plan_without_the_settings_md5_column_is_refused() -> None:
    with pytest.raises(CompilerError, match="deid_release_plan"):
        _read(REAL, REAL, old_table=True)


def test_compile_only_commands_take_the_plan_from_the_settings() -> None:
    plan = _read(PREVIEW, REAL, which="compile")
    assert plan["verified"] == [["age", "sex", "zip"], ["age", "diagnosis"]]
