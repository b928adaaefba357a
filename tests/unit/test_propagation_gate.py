"""The gate propagation (review 11 final, M2): what is published carries every suppression
propagation pair of the release plan.

El Emam et al. 2011 (discharge PUMF, Table 4) release every hierarchy level "except when it
generalizes to a suppressed value": when a record's source level is suppressed, the levels over
the same source column are suppressed with it (the plan's `propagation` pairs, written by the
core: dbt_deid.families.propagation_pairs). The core accepts a released level that is in no
verified combination only where propagation protects it (check_unchecked_levels), and the
exact and combined checks cover the verified combinations only: before this gate, a suppression
map that missed a pair (review 11, F2 and F3) published the suppressed value's bin with every
gate passing. The gate counts, per pair, the records of the checked release whose source cell is
suppressed (null) and whose target cell is not; the missing label is a value, its own category,
not a suppressed cell. The counts come from the gate table's one scan of the checked release
(input_unchanged's) or from one query of the gate's own.

The macros rendered with Jinja outside dbt (tests/macro_render.py) on DuckDB in memory; the
plan table is written by the real glue function (deid_release_plan) and read by the real
release_plan macro.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import duckdb
import pytest

from dbt_deid.dbt_side.glue.release import deid_release_plan
from tests.macro_render import (
    Rel,
    duckdb_get_relation,
    duckdb_run_query,
    macro_caller,
    raise_compiler_error,
)

ROOT = Path(__file__).resolve().parents[2]
FILES = [ROOT / "macros" / "releases" / "release_plan.sql",
         ROOT / "macros" / "gates" / "gates.sql",
         ROOT / "macros" / "gates" / "propagation_gate.sql",
         ROOT / "macros" / "generalize" / "original_value_sources.sql",
         ROOT / "macros" / "publish" / "table_fingerprint.sql"]

MISSING = "<missing>"
#: age released at two levels of one source column (age, age20), as seed 000 releases the
#: diagnosis at several levels; the plan's pairs are (age, age20) and (age20, age)
SETTINGS: dict[str, Any] = {
    "name": "r", "source": "src", "record_id": "rid", "tau": 0.2, "max_suppression": 0.5,
    "quasi_identifiers": {"sex": {"level": 0}, "age": {"hierarchy": "h", "level": 0},
                          "age20": {"column": "age", "hierarchy": "h", "level": 1}},
    "demographics": ["sex"],
    "hierarchical_qis": {"age": {"levels": ["age", "age20"], "generalizes": {"age20": "age"},
                                 "adversary_level": "age"}},
}
CFG = {"record_id": "rid", "missing_label": MISSING, "sample": None,
       "qis": [{"name": "sex", "column": "sex", "level": 0},
               {"name": "age", "column": "age", "level": 0},
               {"name": "age20", "column": "age", "level": 1}],
       "qi_names": ["sex", "age", "age20"]}


def _caller(con: duckdb.DuckDBPyConnection):
    node: dict[str, Any] = {}

    run_query, get_relation = duckdb_run_query(con), duckdb_get_relation(con)

    def context(call):
        return {
            "execute": True, "model": node, "flags": SimpleNamespace(WHICH="build"),
            "this": SimpleNamespace(identifier="deid_gate_results"),
            "exceptions": SimpleNamespace(raise_compiler_error=raise_compiler_error),
            "api": SimpleNamespace(Relation=SimpleNamespace(
                create=lambda **kw: Rel(kw["identifier"]))),
            "adapter": SimpleNamespace(get_relation=get_relation),
            "run_query": run_query, "log": lambda *a, **k: None,
            "dbt": SimpleNamespace(type_string=lambda: "varchar", type_bigint=lambda: "bigint"),
            "dbt_deid": SimpleNamespace(
                own=lambda m: m, release_settings=lambda: SETTINGS,
                release_node_name=lambda base: base, release_ref=lambda base: Rel(base),
                _in_test=lambda: False, ident=lambda n: n,
                literal=lambda v: "'" + str(v).replace("'", "''") + "'",
                _read_release_plan=call("_read_release_plan"),
                _compile_only_command=call("_compile_only_command"),
                source_input=lambda cfg: "src",
                original_value_sources=call("original_value_sources"),
                fingerprint_select_sql=lambda columns, prefix="", present=None,
                names=("row_count", "fingerprint"): call(
                    "duckdb__fingerprint_select_sql")(columns, prefix, present, names),
                _fingerprint_count=call("_fingerprint_count"),
                _fingerprint_when=call("_fingerprint_when"),
                propagation_sums_sql=call("propagation_sums_sql")),
        }
    return macro_caller(FILES, context)


@pytest.fixture()
def con() -> duckdb.DuckDBPyConnection:
    """The plan of SETTINGS and a checked release (the columns deid_suppressed has) of 6
    records, where the map missed the pair (age, age20) on records 1-3: age suppressed, its
    20-year bin shown. Record 4 is propagated (both suppressed); record 5's age is missing (the
    missing label at both levels, not a suppressed cell); record 6 is shown at both levels."""
    con = duckdb.connect()
    con.register("plan", deid_release_plan(json.dumps(SETTINGS)))
    con.execute("create table deid_release_plan as select * from plan")
    con.execute("create table src (rid integer, sex varchar, age integer)")
    con.execute("insert into src values (1, 'F', 23), (2, 'M', 25), (3, 'F', 31),"
                " (4, 'M', 35), (5, 'F', null), (6, 'M', 61)")
    con.execute("create table truth (rid integer, sex varchar, sex__generalized varchar,"
                " sex__original varchar, age varchar, age__generalized varchar,"
                " age__original varchar, age20 varchar, age20__generalized varchar)")
    for rid, sex, age, age20, shown in [
            (1, "F", "23", "20-39", "20-39"), (2, "M", "25", "20-39", "20-39"),
            (3, "F", "31", "20-39", "20-39"), (4, "M", "35", "20-39", None),
            (5, "F", MISSING, MISSING, MISSING), (6, "M", "61", "60-79", "60-79")]:
        con.execute("insert into truth values (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [rid, sex, sex, sex, None if rid <= 4 else age, age, age, shown, age20])
    return con


def _gate(con: duckdb.DuckDBPyConnection, in_scan: bool) -> dict[str, Any]:
    """The gate's result, its counts from input_unchanged's scan or from its own query."""
    call = _caller(con)
    pairs = call("default__release_plan")("propagation")
    misses = None
    if in_scan:
        cols = [r[0] for r in con.execute("describe truth").fetchall()]
        row = con.execute(str(call("default__gate_input_unchanged_sql")(
            "truth", CFG, cols, None, None, None, pairs))).fetchone()
        assert row[0] == 0  # the scan's own gate: the release was computed from this input
        misses = list(row[-len(pairs):])
    return call("gate_propagation_result")("truth", pairs, misses)


def test_the_plan_pairs_are_read() -> None:
    con = duckdb.connect()
    con.register("plan", deid_release_plan(json.dumps(SETTINGS)))
    con.execute("create table deid_release_plan as select * from plan")
    assert _caller(con)("default__release_plan")("propagation") == [["age", "age20"],
                                                                   ["age20", "age"]]


@pytest.mark.parametrize("in_scan", [True, False])
def test_a_missed_pair_fails_with_its_count(con, in_scan: bool) -> None:
    out = _gate(con, in_scan)
    print(out["message"])
    assert out["gate"] == "propagation" and not out["passed"]
    assert out["failures"] == 3
    assert "age -> age20 (3 record(s))" in out["message"]
    assert "age20 -> age" not in out["message"]  # that pair holds
    assert "20-39" not in out["message"] and "23" not in out["message"]  # never a value


@pytest.mark.parametrize("in_scan", [True, False])
def test_propagation_done_passes(con, in_scan: bool) -> None:
    con.execute("update truth set age20 = null where age is null")
    out = _gate(con, in_scan)
    assert out["passed"] and out["failures"] == 0, out["message"]
    assert "2 pair(s)" in out["message"]


@pytest.mark.parametrize("in_scan", [True, False])
def test_the_missing_label_is_not_a_suppressed_cell(con, in_scan: bool) -> None:
    """Record 5's age is the missing label with its 20-year bin the missing label: not a
    suppressed source. A record whose age20 is suppressed while age shows the missing label
    breaks the reverse pair (age20 -> age): a missing value is its own category, shown."""
    con.execute("update truth set age20 = null where age is null")
    assert _gate(con, in_scan)["passed"]
    con.execute("update truth set age20 = null where rid = 5")
    out = _gate(con, in_scan)
    assert not out["passed"] and out["failures"] == 1
    assert "age20 -> age (1 record(s))" in out["message"]


def test_no_pair_no_gate() -> None:
    """A release without hierarchical QIs has no propagation pair: no such gate (as
    small_areas when not configured)."""
    plain = {k: v for k, v in SETTINGS.items() if k not in ("hierarchical_qis", "demographics")}
    plain["quasi_identifiers"] = {"sex": {"level": 0}, "age": {"level": 0}}
    con = duckdb.connect()
    con.register("plan", deid_release_plan(json.dumps(plain)))
    con.execute("create table deid_release_plan as select * from plan")
    call = _caller(con)
    pairs = call("default__release_plan")("propagation")
    assert pairs == []
    assert call("gate_propagation_result")("truth", pairs, None) is None
