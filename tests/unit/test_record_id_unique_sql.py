"""record_id is unique as the record key sees it (macros/validation/assert_release_inputs.sql;
review 18, F5): the store keys a record by md5 of the id's canonical text
(record_id_text_sql, which drops a fraction of zeros), so '17' and '17.0', two distinct values,
would be one record. Such a source is refused before anything is built, with one error naming
the model, the column and the counts (never an id). Rendered with Jinja outside dbt and run on
DuckDB in memory."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import duckdb
import pytest

from tests.macro_render import macro_caller
from tests.unit.test_line_lock_sql import ROOT
from tests.unit.test_store_integrity_sql import run_query_on

FILES = [ROOT / "macros" / "validation" / "assert_release_inputs.sql",
         ROOT / "macros" / "gates" / "combined_releases.sql"]


class Refused(Exception):
    """dbt's compiler error."""


def _refuse(message: str) -> None:
    raise Refused(message)


def _check(ids: list[Any]) -> None:
    con = duckdb.connect()
    con.execute("create table src (abstract_id varchar)")
    con.executemany("insert into src values (?)", [[i] for i in ids])

    def context(call):
        return {
            "dbt_deid": SimpleNamespace(
                own=lambda m: m, run_data_checks=lambda: True,
                protected_input=lambda cfg: "src", release_source=lambda cfg: "src",
                assert_source_columns=lambda cfg: None,
                ident=lambda name: '"' + name + '"',
                record_id_text_sql=lambda e: call("default__record_id_text_sql")(e),
                values_missing_from_hierarchies=lambda cfg, src, rel: {}),
            "adapter": SimpleNamespace(dispatch=lambda name, pkg: call("default__" + name)),
            "dbt": SimpleNamespace(type_string=lambda: "varchar",
                                   split_part=lambda s, d, n: f"split_part({s}, {d}, {n})"),
            "flags": SimpleNamespace(EMPTY=False),
            "run_query": run_query_on(con),
            "exceptions": SimpleNamespace(raise_compiler_error=_refuse),
            "this": SimpleNamespace(identifier="deid_generalized"),
        }
    cfg = SimpleNamespace(record_id="abstract_id", qis=[], sample=None)
    macro_caller(FILES, context)("assert_release_inputs")(cfg, None)


def test_ids_that_share_a_key_are_refused() -> None:
    """On cb5e90c '17' and '17.0' passed (two distinct values); version 1 published with 3
    record keys for 4 records, and the next refresh was refused as "rows deleted"."""
    with pytest.raises(Refused) as refused:
        _check(["16", "17", "17.0", "18"])
    message = str(refused.value)
    assert message.startswith("model deid_generalized: column 'abstract_id' (record_id) is not"
                              " unique as a record key: 4 records, 4 distinct values, but 3"
                              " distinct after the key's canonical text")
    assert "17" not in message.replace("'7.0' is '7'", "")  # counts, never an id


def test_duplicate_ids_keep_their_message() -> None:
    with pytest.raises(Refused, match=r"is not unique: 3 records, 2 distinct values$"):
        _check(["1", "1", "2"])


@pytest.mark.parametrize("ids", [["1", "2", "3"], ["1.5", "1.50", "2"], ["A-1", "A-2", "7.0"]])
def test_ids_with_distinct_keys_pass(ids: list[str]) -> None:
    _check(ids)  # '1.5' and '1.50' keep their texts: two records, two keys
