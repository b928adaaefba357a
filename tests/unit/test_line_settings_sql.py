"""A line's settings are fixed between its versions (macros/releases/refresh_line.sql,
check_line and line_settings): a change on a line with published versions is refused unless the
line is started over (`restart`). Rendered with Jinja outside dbt and run on DuckDB in memory."""

from __future__ import annotations

import hashlib
import json
from types import SimpleNamespace
from typing import Any

import duckdb
import pytest

from tests.macro_render import macro_caller
from tests.unit.test_line_lock_sql import ROOT
from tests.unit.test_store_integrity_sql import columns_on, run_query_on

FILE = ROOT / "macros" / "releases" / "refresh_line.sql"
CFG = {"name": "x", "source": "src", "record_id": "abstract_id"}


class Refused(Exception):
    """check_line's refusal (dbt's compiler error)."""


def _refuse(message: str) -> None:
    raise Refused(message)


def _caller(con: Any, settings: dict[str, Any]):
    run_query, columns = run_query_on(con), columns_on(con)

    def context(call):
        return {
            "dbt_deid": SimpleNamespace(
                line_epoch=lambda: call("line_epoch")(),
                line_settings=lambda: call("line_settings")(),
                release_settings=lambda: settings, line_history_relation=lambda: "hist",
                line_shared_release_ids=lambda cfg: [], line_source=lambda cfg: "main.src",
                package_version=lambda: "0.3.0",
                literal=lambda v: "'" + str(v).replace("'", "''") + "'",
                _check_line_others=lambda *a: None,
                _line_refused=lambda cfg, what, todo: _refuse(what + "; " + todo)),
            "adapter": SimpleNamespace(get_relation=lambda *a: True,
                                       get_columns_in_relation=columns),
            "local_md5": lambda s: hashlib.md5(s.encode()).hexdigest(),
            "run_query": run_query,
            "fromjson": json.loads, "tojson": lambda v, sort_keys=False: json.dumps(
                v, sort_keys=sort_keys),
            "exceptions": SimpleNamespace(raise_compiler_error=_refuse),
        }
    return macro_caller([FILE], context)


def _line(published: dict[str, Any]) -> Any:
    """A line 'x' with version 1 published under `published` settings."""
    con = duckdb.connect()
    con.execute("create table store as select 'x' as release_name, '' as line_epoch,"
                " 'abstract_id' as record_id_column, 'main.src' as source_relation,"
                " '0.3.0' as package_version, 1 as release_version, 'r1' as release_id")
    con.execute("create table hist as select 'x' as release_name, 1 as release_version,"
                " 'published' as status, ? as settings_json", [json.dumps(published)])
    return con


@pytest.mark.parametrize("before, now", [({}, {"max_changed_share": 0.5}),
                                         ({"max_changed_share": 0.1}, {}),
                                         ({"max_changed_share": 0.1},
                                          {"max_changed_share": 1})])
def test_max_changed_share_is_a_line_setting(before: dict, now: dict) -> None:
    """Review 8 final, R3: max_changed_share (the renumbered-ids check's limit) raised between
    versions, or a raised value dropped, is refused like tau (on 45d0c4e it passed: a value
    raised once for a bulk correction kept excusing every later renumbering); set with a
    `restart` (a new line) it is the line's value from then on."""
    base = {"tau": 0.2}
    con = _line({**base, **before})
    call = _caller(con, {**base, **before})
    assert not call("check_line")(CFG, "store")  # unchanged: no refusal
    with pytest.raises(Refused, match=r"setting\(s\) max_changed_share changed since version 1"
                       ) as refused:
        _caller(con, {**base, **now})("check_line")(CFG, "store")
    assert "`restart" in str(refused.value)
    restarted = {**base, **now, "restart": {"reason": "ids rebuilt upstream (ticket 7)"}}
    assert not _caller(con, restarted)("check_line")(CFG, "store")
