"""deid_report_inputs (issue 33, item 3): the report's optional inputs in one long view, split
back into the frames their own tables gave before the fold (the search nodes and the history's
versions since session 10; the small-area inputs and the population patterns since session 12,
whose models are built only when their setting is declared).

default__report_inputs_sql rendered with Jinja outside dbt (tests/macro_render.py) with the real
search-nodes and history-versions SQL, run on DuckDB in memory. Each part, split by
:func:`dbt_deid.dbt_side.glue.report_inputs.report_input_parts`, must equal the part's own query
run alone: the same columns in the same order, the same values and, from a DuckDB relation, the
same pandas types. QI names that are other parts' column names (`status`, `invocation_id`) must
come back as the search nodes' level columns and the population patterns' QI columns, not
collide.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace

import duckdb
import pandas as pd
import pytest

from dbt_deid.arrow_frames import arrow_to_pandas
from dbt_deid.dbt_side.glue.report_inputs import report_input_parts
from tests.macro_render import macro_caller

ROOT = Path(__file__).resolve().parents[2]
FILES = [ROOT / "macros" / "releases" / "report_inputs_sql.sql",
         ROOT / "macros" / "releases" / "report_input_columns.sql",
         ROOT / "macros" / "releases" / "release_versions_sql.sql",
         ROOT / "macros" / "ola" / "search_nodes_sql.sql"]
#: QI names that are also other parts' columns
QIS = ["invocation_id", "status", "age"]
CFG = {"name": "rel", "qi_names": QIS}


class _Rel:
    def __init__(self, identifier: str) -> None:
        self.identifier = identifier

    def include(self, database: bool = True) -> str:
        return f"main.{self.identifier}"

    def __str__(self) -> str:
        return f"memory.main.{self.identifier}"


def _ident(name: str) -> str:
    return name if re.fullmatch(r"[a-z_][a-z0-9_]*", name) else '"' + name + '"'


def _macros():
    def context(call):
        return {
            "adapter": SimpleNamespace(dispatch=lambda name, package: call("default__" + name)),
            "dbt_deid": SimpleNamespace(
                own=lambda m: m, ident=_ident, type_double=lambda: "double",
                literal=lambda v: "'" + str(v).replace("'", "''") + "'",
                report_input_columns=call("report_input_columns"),
                search_nodes_sql=call("search_nodes_sql"),
                release_versions_sql=call("release_versions_sql")),
            "dbt": SimpleNamespace(
                type_int=lambda: "integer", type_bigint=lambda: "bigint",
                type_string=lambda: "varchar", type_boolean=lambda: "boolean",
                right=lambda s, n: f"right({s}, {n})"),
        }
    return macro_caller(FILES, context)


@pytest.fixture()
def con() -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute("""create table search as select * from (values
        (0, 0, 0, 'top', 0, 0.0, true, false, 'entropy', null, 0.05, 4, 'optimal'),
        (1, 0, 2, 'k_minimal', 12, 0.003, true, true, 'entropy', 16609.5, 0.05, 4, 'optimal'),
        (0, 1, 1, 'evaluated', 900, 0.225, false, false, 'entropy', 14878.0, 0.05, 4, 'optimal'),
        (2, 1, 3, 'evaluated', 3, 0.00075, true, false, 'entropy', 20000.25, 0.05, 4, 'optimal'))
        as t(invocation_id, status, age, role, suppressed, suppressed_share, passes, chosen, metric,
             entropy, max_suppression, nodes_evaluated, search)""")
    con.execute("""create table history as select * from (values
        ('rel', 'memory.main.pub', 1, 'published', '2026-11-27T10:00:00Z', 4000, '0.3.0', '',
         null, null, 'inv-1'),
        ('rel', 'other.main.pub', null, 'refused', '2026-11-27T11:00:00Z', null, '0.3.0',
         'k_anonymity', null, null, 'inv-2'),
        ('rel', 'memory.main.pub', 2, 'published', '2026-11-27T12:00:00Z', 4100, '0.3.0', '',
         3900, 5, 'inv-3'),
        ('other', 'memory.main.pub', 1, 'published', '2026-11-27T12:00:00Z', 10, '0.3.0', '',
         null, null, 'inv-4'))
        as t(release_name, published_relation, release_version, status, recorded_at,
             published_rows, package_version, gates_failed, records_shared,
             combined_min_consistent, invocation_id)""")
    con.execute("alter table history alter release_version type bigint")
    con.execute("alter table history alter published_rows type bigint")
    con.execute("alter table history alter records_shared type bigint")
    con.execute("alter table history alter combined_min_consistent type bigint")
    # deid_small_area_inputs with the types the view gives its columns (population and
    # threshold double; test_small_area_inputs_of_the_models_types: the model's own types)
    con.execute("""create table areas as select * from (values
        (1, 'East', 120000.0, 900, 40000, 'province', 1, 0.05, 2),
        (1, 'West', 3000.0, 15, 40000, 'province', 1, 0.05, 2),
        (2, 'Canada', 123000.0, 915, 40000, 'province', 1, 0.05, 2))
        as t(area_level, area, population, records, maxcombs, geography_column, released_level,
             threshold, source_areas_without_population)""")
    for c in ("records", "maxcombs", "source_areas_without_population"):
        con.execute(f"alter table areas alter {c} type bigint")
    con.execute("alter table areas alter population type double")
    con.execute("alter table areas alter threshold type double")
    # deid_population_patterns: each QI's value at the released level (text) and the count n
    con.execute("""create table population as select * from (values
        ('0', 'a', '30-39', 70), ('1', 'b', '40-49', 7), ('1', 'a', '40-49', 1200))
        as t(invocation_id, status, age, n)""")
    con.execute("alter table population alter n type bigint")
    # deid_algorithm_comparison as the Python model writes it (pandas int64, float64, bool)
    comparison = pd.DataFrame({  # noqa: F841 - read by DuckDB's replacement scan
        "algorithm": ["combinations", "combinations", "complete"],
        "column_name": ["(all quasi-identifiers)", "age", "(all quasi-identifiers)"],
        "suppressed_cells": [12, 4, 30], "share_cells_suppressed": [0.01, 0.005, 0.025],
        "records_with_suppression": [10, 4, 20],
        "share_records_with_suppression": [0.1, 0.04, 0.2],
        "suppression_entropy": [1.5, 0.5, 3.0], "smallest_class": [5, 5, 6],
        "min_consistent_exact": [5, 5, 7], "selected": [True, True, False]})
    con.execute("create table comparison as select * from comparison")
    return con


def _view(con: duckdb.DuckDBPyConnection, search: bool, history: bool, areas: bool = False,
          population: bool = False, comparison: bool = False) -> str:
    call = _macros()
    sql = call("report_inputs_sql")(
        CFG, _Rel("search") if search else None, "entropy" if search else None,
        _Rel("history") if history else None, _Rel("pub"),
        _Rel("areas") if areas else None, _Rel("population") if population else None,
        _Rel("comparison") if comparison else None)
    con.execute(f"create or replace view report_inputs as {sql}")
    return sql


def _alone(con: duckdb.DuckDBPyConnection) -> dict[str, pd.DataFrame]:
    """Each part's own query run alone (the tables the view replaces), as the glue reads a
    DuckDB relation."""
    call = _macros()
    queries = {
        "search_nodes": call("search_nodes_sql")(CFG, _Rel("search"), "entropy"),
        "release_versions": call("release_versions_sql")(CFG, _Rel("history"), _Rel("pub")),
        "small_area_inputs": "select * from areas",
        "population_patterns": "select * from population",
        "algorithm_comparison": "select * from comparison",
    }
    return {part: arrow_to_pandas(con.sql(q).arrow()) for part, q in queries.items()}


def test_each_part_is_its_own_table(con: duckdb.DuckDBPyConnection) -> None:
    _view(con, search=True, history=True, areas=True, population=True, comparison=True)
    alone = _alone(con)
    parts = report_input_parts(con.table("report_inputs"))
    assert set(parts) == set(alone)
    assert list(parts["search_nodes"].columns[:len(QIS)]) == QIS
    assert list(parts["population_patterns"].columns) == [*QIS, "n"]
    assert len(parts["small_area_inputs"]) == 3 and len(parts["population_patterns"]) == 3
    assert len(parts["search_nodes"]) == 3  # not the top node
    assert list(parts["release_versions"]["invocation_id"].sort_values()) == ["inv-1", "inv-2",
                                                                            "inv-3"]
    for part, want in alone.items():
        got = parts[part]
        key = list(want.columns[:2])
        pd.testing.assert_frame_equal(
            got.sort_values(key).reset_index(drop=True),
            want.sort_values(key).reset_index(drop=True),
            obj=part)


def test_pandas_frames_split_the_same(con: duckdb.DuckDBPyConnection) -> None:
    """An engine that hands pandas back (Spark's toPandas: integers of a column with nulls as
    floats, booleans as objects): the same parts, integer and boolean columns restored."""
    _view(con, search=True, history=True, areas=True, population=True, comparison=True)
    from_arrow = report_input_parts(con.table("report_inputs"))
    from_pandas = report_input_parts(con.sql("select * from report_inputs").df())
    for part, want in from_arrow.items():
        got = from_pandas[part]
        assert list(got.columns) == list(want.columns), part
        key = list(want.columns[:2])
        pd.testing.assert_frame_equal(got.sort_values(key).reset_index(drop=True),
                                      want.sort_values(key).reset_index(drop=True),
                                      check_dtype=False, obj=part)
    nodes = from_pandas["search_nodes"]
    assert nodes["chosen"].dtype == bool and nodes["suppressed"].dtype == "int64"
    assert from_pandas["small_area_inputs"]["records"].dtype == "int64"
    assert from_pandas["population_patterns"]["n"].dtype == "int64"
    assert from_pandas["algorithm_comparison"]["selected"].dtype == bool
    assert from_pandas["algorithm_comparison"]["suppressed_cells"].dtype == "int64"


def test_a_part_that_does_not_apply_has_no_row(con: duckdb.DuckDBPyConnection) -> None:
    """No search (levels set), no history yet, no small areas, no population information (their
    models are then not built, and the view does not read them): every part empty, with its
    columns (the report then says no search ran, gives version 1 and has no small-area or
    population figures, as from the empty tables the models gave before session 12)."""
    sql = _view(con, search=False, history=False)
    assert not {"search", "areas", "population", "comparison"} & set(
        re.findall(r"from (\w+)", sql))
    parts = report_input_parts(con.table("report_inputs"))
    for part, frame in parts.items():
        assert len(frame) == 0, part
    assert list(parts["search_nodes"].columns[:len(QIS)]) == QIS
    assert "nodes_evaluated" in parts["search_nodes"].columns
    assert list(parts["release_versions"].columns)[:2] == ["release_version", "status"]
    assert list(parts["population_patterns"].columns) == [*QIS, "n"]
    assert list(parts["small_area_inputs"].columns) == list(con.table("areas").columns)
    assert list(parts["algorithm_comparison"].columns) == list(con.table("comparison").columns)


def test_small_area_inputs_of_the_models_types(con: duckdb.DuckDBPyConnection) -> None:
    """deid_small_area_inputs as the model builds it on DuckDB (the level a plain integer, the
    population a sum of integers, HUGEINT; the threshold a decimal literal): the part gives the
    same values, the population and the threshold as floats (what the report's small-area
    assessment reads them as: dbt_deid.risk.geography.assess_areas)."""
    con.execute("""create or replace table areas as
        select 1 as area_level, 'East' as area, sum(p) as population,
          cast(900 as bigint) as records, cast(40000 as bigint) as maxcombs,
          'province' as geography_column, 1 as released_level, 0.05 as threshold,
          (select count(*) from range(2)) as source_areas_without_population
        from (values (100000), (20000)) as t(p)""")
    _view(con, search=False, history=False, areas=True)
    got = report_input_parts(con.table("report_inputs"))["small_area_inputs"]
    want = arrow_to_pandas(con.sql("select * from areas").arrow())
    assert list(got.columns) == list(want.columns)
    assert got["population"].dtype == "float64" and got["population"].iloc[0] == 120000.0
    assert got["threshold"].iloc[0] == 0.05
    pd.testing.assert_frame_equal(got.drop(columns=["population", "threshold"]),
                                  want.drop(columns=["population", "threshold"]))
