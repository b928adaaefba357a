"""The release plan bound to the settings of now (review 9 final, F7): the gate plan_settings.

`python -m dbt_deid advise --vars '<a preview>'` rebuilds deid_release_plan (with the map and
deid_generalized) under the preview's settings; a later `dbt build -s deid_suppressed+` under
the real settings rebuilt the gate table over that plan: it verified the preview's combinations
only, the gate working_tables fingerprinted the same plan in the same invocation, and version 1
was published without the real combinations ever checked. The plan now records the md5 of the
settings it was resolved from (written by the Python glue, deid_release_plan), read in the same
query as its combinations (_read_release_plan); the gate plan_settings (gate table) and the
publish step's gate working_tables refuse a plan of other settings or of none. The plan is still
read (single models and previews run): only publishing is refused.

The macros rendered with Jinja outside dbt (tests/macro_render.py), the plan table written by
the real glue function into DuckDB in memory; the settings md5 of now is the macro's
(settings_md5: local_md5(tojson(settings, sort_keys=true))).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import duckdb
import pytest

from dbt_deid.dbt_side.glue.release import deid_release_plan
from tests.macro_render import (
    CompilerError,
    Rel,
    duckdb_get_relation,
    duckdb_run_query,
    macro_caller,
    raise_compiler_error,
)

ROOT = Path(__file__).resolve().parents[2]
FILES = [ROOT / "macros" / "config" / "settings_schema.sql",
         ROOT / "macros" / "gates" / "plan_format.sql",
         ROOT / "macros" / "gates" / "code_digest.sql",
         ROOT / "macros" / "releases" / "release_plan.sql",
         ROOT / "macros" / "gates" / "plan_settings_gate.sql",
         ROOT / "macros" / "gates" / "working_tables_gate.sql",
         ROOT / "macros" / "gates" / "gate_table.sql"]

REAL = {
    "name": "r", "source": "src", "record_id": "id",
    "quasi_identifiers": {"age": {"level": 0}, "sex": {"level": 0}, "zip": {"level": 0},
                          "diagnosis": {"level": 0}},
    "combinations": [["age", "sex", "zip"], ["age", "diagnosis"]],
    "tau": 0.2, "max_suppression": 0.1,
}
#: the preview `advise --vars` built the plan with: [age, diagnosis] not verified
PREVIEW = {**REAL, "combinations": [["age", "sex", "zip"], ["diagnosis"]]}


def _caller(con: duckdb.DuckDBPyConnection, now: dict[str, Any], which: str = "build",
            extra: dict[str, Any] | None = None):
    """The macros on `con` (the plan table main.deid_release_plan, when built), in a node under
    `dbt <which>` whose settings are `now`; `extra`: more dbt_deid macros (stand-ins)."""
    node: dict[str, Any] = {}

    run_query, get_relation = duckdb_run_query(con), duckdb_get_relation(con)

    def context(call):
        return {
            "execute": True, "model": node, "flags": SimpleNamespace(WHICH=which),
            "this": SimpleNamespace(identifier="deid_published"),
            "exceptions": SimpleNamespace(raise_compiler_error=raise_compiler_error),
            "api": SimpleNamespace(Relation=SimpleNamespace(
                create=lambda **kw: Rel(kw["identifier"]))),
            "adapter": SimpleNamespace(
                get_relation=get_relation,
                dispatch=lambda name, package: call("default__" + name)),
            "run_query": run_query, "log": lambda *a, **k: None,
            "tojson": lambda v, sort_keys=False: json.dumps(v, sort_keys=sort_keys),
            "fromjson": json.loads,
            "local_md5": lambda s: hashlib.md5(s.encode()).hexdigest(),
            "dbt_deid": SimpleNamespace(
                **(extra or {}), own=lambda m: m, release_settings=lambda: now,
                release_node_name=lambda base: base,
                release_ref=lambda base: Rel(base),
                _in_test=lambda: False,
                settings_md5=call("settings_md5"),
                settings_schema=call("default__settings_schema"),
                plan_format=call("default__plan_format"), package_version=lambda: "0.3.0",
                code_digest=call("default__code_digest"),
                release_plan=call("default__release_plan"),
                plan_settings_problem=call("plan_settings_problem"),
                _read_release_plan=call("_read_release_plan"),
                _compile_only_command=call("_compile_only_command"),
                _release_plan_from_settings=call("_release_plan_from_settings")),
        }
    return macro_caller(FILES, context)


def _plan_of(settings: dict[str, Any], old_table: bool = False) -> duckdb.DuckDBPyConnection:
    """DuckDB holding main.deid_release_plan as the model writes it for `settings` (an older
    dbt_deid's: without its settings_md5 column)."""
    frame = deid_release_plan(json.dumps(settings))
    if old_table:
        frame = frame.drop(columns=["settings_md5"])
    con = duckdb.connect()
    con.register("frame", frame)
    con.execute("create table deid_release_plan as select * from frame")
    return con


def test_the_plan_records_the_md5_of_its_settings_as_the_gate_table_does() -> None:
    """The Python model's md5 is the macro settings_md5's (the gate table's settings_md5)."""
    con = _plan_of(REAL)
    recorded = {r[0] for r in con.execute("select settings_md5 from deid_release_plan").fetchall()}
    assert recorded == {_caller(con, REAL)("settings_md5")()}


def test_a_plan_of_these_settings_passes() -> None:
    call = _caller(_plan_of(REAL), REAL)
    out = call("default__gate_plan_settings_result")()
    assert out["gate"] == "plan_settings" and out["passed"], out["message"]
    assert call("default__release_plan")("verified") == REAL["combinations"]


def test_a_plan_built_by_a_preview_fails_the_gate_but_is_still_read() -> None:
    """The preview's plan under the real settings: the old code read its combinations (the
    gate table verified [age, sex, zip] and [diagnosis] only) and had no such gate."""
    call = _caller(_plan_of(PREVIEW), REAL)
    # read, not refused: a single model or a preview run under other vars still works
    assert call("default__release_plan")("verified") == [["age", "sex", "zip"], ["diagnosis"]]
    out = call("default__gate_plan_settings_result")()
    print(out["message"])
    assert out["gate"] == "plan_settings" and not out["passed"] and out["failures"] == 1
    assert "the release plan main.deid_release_plan (deid_release_plan) was computed from other" \
        " settings" in out["message"]
    assert "dbt build -s +deid_published" in out["message"]


def test_a_plan_without_the_settings_md5_column_fails_the_gate() -> None:
    call = _caller(_plan_of(REAL, old_table=True), REAL)
    assert call("default__release_plan")("verified") == REAL["combinations"]
    out = call("default__gate_plan_settings_result")()
    assert not out["passed"]
    assert "records no settings_md5" in out["message"]


@pytest.mark.parametrize("this_invocation", [True, False])
def test_the_publish_step_refuses_a_plan_of_other_settings(this_invocation: bool) -> None:
    """The publish step's gate working_tables: in the gate table's own invocation nothing was
    fingerprinted again, and in a later one the plan's fingerprint is compared with the gate
    table's; neither compared the plan with the settings (the old code passed both: "the
    release plan, the hierarchy and the input snapshot are those the gate table was computed
    with"). A plan of other settings is refused in both (the fingerprints recorded here equal
    the plan's now, so only the settings differ)."""
    fingerprints = {"deid_release_plan": "p", "deid_hierarchy": "h"}
    extra = {"working_tables_fingerprints": lambda cfg: fingerprints,
             "working_tables": lambda cfg: [("deid_release_plan", Rel("deid_release_plan"), None),
                                            ("deid_hierarchy", Rel("deid_hierarchy"), None)],
             "release_snapshot": lambda: Rel("deid_input"), "can_inspect": lambda rel: False,
             "table_fingerprint": lambda rel, cols=None: SimpleNamespace(hash=None),
             "released_source_columns": lambda cfg: []}
    for settings, refused in [(PREVIEW, True), (REAL, False)]:
        call = _caller(_plan_of(settings), REAL, "run", extra)
        out = call("gate_working_tables_result")({}, json.dumps(fingerprints), None,
                                                 this_invocation)
        print(out["message"])
        assert out["gate"] == "working_tables" and out["passed"] is not refused, out["message"]
        if refused:
            assert "the release plan main.deid_release_plan (deid_release_plan) was computed" \
                " from other settings" in out["message"]
            assert "dbt build -s +deid_published" in out["message"]


def test_compile_only_commands_on_a_fresh_warehouse_take_the_settings_md5_of_now() -> None:
    """No plan table under `dbt compile`: the plan from the settings, bound to them."""
    con = duckdb.connect()
    call = _caller(con, REAL, which="compile")
    plan = call("_read_release_plan")(Rel("deid_release_plan"))
    assert plan["settings_md5"] == [call("settings_md5")()]


def test_no_stand_in_error_class_is_raised_on_reading() -> None:
    """Reading a preview's plan raises nothing (the reverted fix raised in every reader and
    refused every `dbt run -s <model> --vars <other>`)."""
    call = _caller(_plan_of(PREVIEW), REAL)
    try:
        call("_read_release_plan")(Rel("deid_release_plan"))
    except CompilerError as err:  # pragma: no cover - the failure this test guards against
        pytest.fail(str(err))
