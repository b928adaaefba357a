"""The lookup-hierarchy checks of deid_hierarchy: Spark's one-query form
(``spark__assert_lookup_hierarchies``, issue 37) raises the same first error as the portable
one (``assert_lookup_hierarchy`` per QI, two queries each), both rendered outside dbt and run
on DuckDB."""

from __future__ import annotations

from functools import cache
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import duckdb
import pytest

from tests.macro_render import macro_caller

ROOT = Path(__file__).resolve().parents[2]

#: relation -> (columns, rows); None is an empty value
TABLES = {
    "ok_h": (["code", "block", "chapter"], [("a", "A", "X"), ("b", "A", "X"), ("c", "B", "X")]),
    "dup_h": (["code", "block"], [("b", "B"), ("b", "B"), ("a", "A"), ("a", "A"), ("a", "A"),
                                  ("c", "C")]),
    "null_h": (["code", "block", "chapter"], [("x", "X", None), ("z", None, "Z"),
                                              ("y", "Y", "Y")]),
    "both_h": (["code", "block"], [("m", None), ("m", "M")]),
}


class _Error(Exception):
    pass


def _raise(message: str) -> None:
    raise _Error(message)


#: The statements run by the last check.
QUERIES: list[str] = []


@cache
def _checker() -> Any:
    queries = QUERIES
    con = duckdb.connect()
    for name, (cols, rows) in TABLES.items():
        con.execute(f"create table {name} (" + ", ".join(f'"{c}" varchar' for c in cols) + ")")
        if rows:
            con.executemany(f"insert into {name} values ({', '.join('?' for _ in cols)})", rows)

    def run_query(sql: str) -> Any:
        queries.append(sql)
        return SimpleNamespace(rows=con.execute(sql).fetchall())

    return macro_caller(sorted((ROOT / "macros" / "hierarchy").glob("assert_lookup*.sql")),
                        lambda call: {
        "this": SimpleNamespace(identifier="deid_hierarchy"),
        "exceptions": SimpleNamespace(raise_compiler_error=_raise),
        "run_query": run_query,
        "dbt": SimpleNamespace(type_string=lambda: "varchar"),
        "dbt_deid": SimpleNamespace(ident=lambda n: f'"{n}"',
                                    _assert_lookup_levels=call("_assert_lookup_levels"),
                                    assert_lookup_hierarchy=call(
                                        "default__assert_lookup_hierarchy")),
    })


def _lookups(*spec: tuple[str, str, int]) -> list[tuple[dict[str, Any], str, list[Any]]]:
    """(QI name, relation, released level) -> assert_lookup_hierarchies' argument."""
    out = []
    for name, relation, level in spec:
        cols = [SimpleNamespace(name=c) for c in TABLES[relation][0]] if relation in TABLES else []
        out.append(({"name": name, "hierarchy": relation, "level": level}, relation, cols))
    return out


def _outcome(variant: str, lookups: list[Any]) -> tuple[str | None, int]:
    QUERIES.clear()
    try:
        _checker()(f"{variant}__assert_lookup_hierarchies")(lookups)
    except _Error as err:
        return str(err), len(QUERIES)
    return None, len(QUERIES)


CASES = {
    "all pass": [("a", "ok_h", 2), ("b", "ok_h", 1)],
    "smallest duplicate key, its count": [("a", "ok_h", 1), ("b", "dup_h", 1)],
    "lowest level, then key, of an empty value": [("a", "null_h", 1)],
    "the first QI's error first": [("a", "null_h", 0), ("b", "dup_h", 1)],
    "a duplicate before an empty value": [("a", "both_h", 1)],
    "too few levels before the data": [("a", "ok_h", 1), ("b", "ok_h", 3), ("c", "dup_h", 1)],
    "a missing hierarchy": [("a", "ok_h", 1), ("b", "nowhere_h", 1)],
}


@pytest.mark.parametrize("case", list(CASES))
def test_spark_form_raises_the_portable_forms_first_error(case: str) -> None:
    lookups = _lookups(*CASES[case])
    portable, _ = _outcome("default", lookups)
    spark, n_queries = _outcome("spark", lookups)
    assert spark == portable
    assert n_queries <= 1
    if case == "all pass":
        assert portable is None
    else:
        assert portable is not None and "model deid_hierarchy: hierarchy" in portable


def test_expected_messages() -> None:
    """The portable form's messages the Spark form must reproduce (so the comparison above
    compares errors, not two Nones)."""
    assert "duplicate key value 'a' (3 rows)" in _outcome(
        "spark", _lookups(*CASES["smallest duplicate key, its count"]))[0]
    assert "empty value at level 1 for key 'z'" in _outcome(
        "spark", _lookups(*CASES["lowest level, then key, of an empty value"]))[0]
    assert "of column 'b' has 2 levels but level 3" in _outcome(
        "spark", _lookups(*CASES["too few levels before the data"]))[0]
