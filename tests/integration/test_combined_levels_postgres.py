"""The mixed-level combined view and its exact check (issue 32, item 2) on PostgreSQL: the
package's macros combined_levels_view_sql and exact_levels_summary_sql rendered outside dbt
(tests/combined_levels_sql.py) and run on a private PostgreSQL server (initdb + pg_ctl, a Unix
socket of its own: tests/integration/postgres_server.py), held to the same reference as on
DuckDB (tests/combined_view_check.py): the hand-counted case, the two gaps the review found
(a stored release without its level, a value changed at a middle level of three) and random
releases at three levels (the tests of tests/unit/test_combined_levels_sql.py, collected here
with this module's engine); the line gates' portable multiset difference rows_not_in_sql held
to PostgreSQL's EXCEPT ALL (tests/unit/test_rows_not_in_sql.py); the readers of a refresh's
current patterns (a subquery: PostgreSQL 15 wants it aliased; review 9, G3:
tests/unit/test_current_patterns_readers_sql.py); the changed records' linked check
(linked_changes_sql; review 10, B1: tests/unit/test_linked_changes_sql.py); a refresh's pairs
and per-record pair columns with the linked guard's per-release detail (refresh_line.sql;
review 11 final, M1: tests/unit/test_living_pairs_sql.py; both forms, and a line of 8 QIs at 60
stored versions written as a table, whose wide pairs passed PostgreSQL's 1,600 columns); the
fingerprint's exact sums and the Python steps' COPY read (issue 37). No dbt build: a few
seconds, most of them the server's start.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.combined_levels_sql import Execute
from tests.integration.postgres_server import PostgresServer, module_server
from tests.unit.test_combined_levels_sql import (  # noqa: F401 - collected here, on PostgreSQL
    test_a_store_release_without_its_level_is_not_read_at_the_candidates_level,
    test_a_value_changed_at_a_middle_level_is_a_conflict,
    test_the_finest_cell_and_consistency_at_each_cells_level,
    test_the_sql_agrees_with_the_reference,
)
from tests.unit.test_current_patterns_readers_sql import (  # noqa: F401 - on PostgreSQL
    test_the_readers_alias_current_patterns_subquery,
)
from tests.unit.test_line_lock_sql import line_lock_caller
from tests.unit.test_linked_changes_sql import (  # noqa: F401 - collected here, on PostgreSQL
    test_a_candidate_without_original_values_counts_finer_states_as_changed,
    test_a_cell_revealed_by_an_older_version_counts,
    test_a_change_at_another_level_is_counted_through_the_hierarchy,
    test_a_correction_seen_only_at_the_finer_level_is_rechecked,
    test_a_nightly_line_of_eight_qis_and_many_versions,
    test_a_record_absent_from_a_version_holding_the_target_is_not_counted,
    test_a_record_changed_in_an_earlier_version_is_rechecked,
    test_a_record_corrected_across_a_level_change_is_rechecked,
    test_a_store_without_a_qis_columns_counts_every_record_as_changed,
    test_a_stored_row_twice_is_not_two_releases,
    test_an_older_version_at_another_level_rules_records_out,
    test_an_older_version_rules_records_out_at_equal_levels,
    test_corrected_records_alone_across_versions_are_counted,
    test_the_gate_accepts_what_the_refresh_guard_published,
    test_the_sql_agrees_with_the_reference_at_mixed_levels,
    test_the_sql_agrees_with_the_reference_on_finer_corrections,
)
from tests.unit.test_linked_changes_sql import (  # noqa: F401 - on PostgreSQL
    test_the_sql_agrees_with_the_reference as test_the_linked_sql_agrees_with_the_reference,
)
from tests.unit.test_living_pairs_sql import (  # noqa: F401 - collected here, on PostgreSQL
    test_a_line_of_sixty_versions_reads_its_detail,
    test_each_current_record_carries_its_pair_columns,
    test_the_pairs_are_the_documented_ones,
    test_the_pairs_carry_each_release_detail,
)
from tests.unit.test_rows_not_in_sql import (  # noqa: F401 - collected here, on PostgreSQL
    test_random_tables_agree_with_except_all,
    test_the_count_is_except_alls,
)

pytestmark = pytest.mark.engines


@pytest.fixture(scope="module")
def server() -> Iterator[PostgresServer]:
    """A private PostgreSQL server for this module."""
    yield from module_server("dbt_deid_pg_levels_")


def _runner(con) -> Execute:  # noqa: ANN001 - psycopg2 connection
    def run(sql: str) -> list[tuple]:
        with con.cursor() as cur:
            cur.execute(sql)
            return cur.fetchall() if cur.description else []
    return run


@pytest.fixture
def forms() -> list[str]:
    """rows_not_in_sql's forms run here: the portable default__ and postgres__ (EXCEPT ALL)."""
    return ["default", "postgres"]


@pytest.fixture(scope="module")
def execute(server: PostgresServer) -> Iterator[Execute]:
    """The SQL on a private PostgreSQL server (this module's tests are the unit tests of
    test_combined_levels_sql.py, whose ``execute`` is DuckDB in memory)."""
    con = server.connect()
    con.autocommit = True
    yield _runner(con)
    con.close()


def test_the_line_lock_waits_for_the_first_publish(server: PostgresServer) -> None:
    """macros/gates/line_lock.sql on PostgreSQL: two publishes of one source in one build (two
    connections, each in its transaction, as dbt's threads): the second's lock waits until the
    first commits, then the second reads the first's store rows (READ COMMITTED); another
    source's line is not held up."""
    setup = server.connect()
    setup.autocommit = True
    line_lock_caller(_runner(setup))("ensure_line_locks")(None, ["main.discharge", "main.monthly"])
    _runner(setup)("create table lock_store (n int)")
    first, second, other = server.connect(), server.connect(), server.connect()
    line_lock_caller(_runner(first))("lock_release_line")({"source": "main.discharge"}, None)
    line_lock_caller(_runner(other))("lock_release_line")({"source": "main.monthly"}, None)
    other.commit()  # another line: not held up by the first
    seen: list[int] = []

    def second_publish() -> None:
        line_lock_caller(_runner(second))("lock_release_line")({"source": "main.discharge"},
                                                               None)
        seen.append(_runner(second)("select count(*) from lock_store")[0][0])
        second.commit()

    thread = threading.Thread(target=second_publish)
    thread.start()
    thread.join(0.5)
    assert thread.is_alive() and not seen  # waiting for the first publish
    _runner(first)("insert into lock_store values (1)")  # its store rows
    first.commit()
    thread.join(10.0)
    assert seen == [1]  # the second reads the first's rows
    for con in (first, second, other, setup):
        con.close()


def _fingerprint_macros():  # noqa: ANN202 - the rendered macros of table_fingerprint.sql
    from types import SimpleNamespace

    from tests.macro_render import macro_caller
    root = Path(__file__).resolve().parents[2]
    return macro_caller([root / "macros" / "publish" / "table_fingerprint.sql",
                         root / "macros" / "gates" / "checked_fingerprint.sql"], lambda call: {
        "dbt_deid": SimpleNamespace(
            ident=lambda n: n, literal=lambda v: "'" + str(v).replace("'", "''") + "'",
            postgres_record_hash_sql=call("postgres_record_hash_sql"),
            _fingerprint_count=call("_fingerprint_count"),
            _fingerprint_when=call("_fingerprint_when"),
            fingerprint_select_sql=lambda columns, prefix="", present=None,
            names=("row_count", "fingerprint"): call("postgres__fingerprint_select_sql")(
                columns, prefix, present, names),
            postgres_fingerprint_row_text=call("postgres_fingerprint_row_text"),
            postgres_fingerprint_sums_sql=call("postgres_fingerprint_sums_sql"))})


def test_a_value_swapped_between_two_rows_changes_the_postgres_fingerprints(execute) -> None:
    """Review of session 5: the PostgreSQL fingerprints summed `hash_record_extended` of each
    row, which is linear in its fields' hashes (31 * h(a) + h(b)), so two tables holding the
    same values per column, paired differently across rows, had the same fingerprint about half
    the time (976 of 2,000 pass-through swaps; 891 of 2,000 re-pairings of the pattern proof).
    The input, checked-release and pattern fingerprints rest on them. Each row's text is hashed
    now: every one of 200 swaps changes both fingerprints."""
    call = _fingerprint_macros()
    plain = call("postgres__fingerprint_select_sql")(["rid", "age", "note"], "", None,
                                                     ["row_count", "fingerprint"])
    # session 20: the checked release's fingerprint hashes each row by its record
    record = call("postgres_record_fingerprint_select_sql")(["rid", "age", "note"], "", None,
                                                            ["row_count", "fingerprint"])
    weighted = call("postgres__weighted_fingerprint_select_sql")(
        ["q", "t"], "", "n", ["total", "fingerprint"])
    same = 0
    for i in range(200):
        a, b = f"x{i}", f"y{i}"
        rows = [f"('1', '3{i % 7}', '{a}')", f"('2', '4{i % 5}', '{b}')"]
        swapped = [f"('1', '3{i % 7}', '{b}')", f"('2', '4{i % 5}', '{a}')"]
        for form in (plain, record):
            fps = [execute(f"select {form} from (values {', '.join(r)}) as v(rid, age, note)")[0]
                   for r in (rows, swapped)]
            same += fps[0] == fps[1]
        # the pattern proof: the same values per column, paired the other way
        pairs = [f"('{a}', '1', 1), ('{b}', '2', 1)", f"('{a}', '2', 1), ('{b}', '1', 1)"]
        wps = [execute(f"select {weighted} from (values {p}) as v(q, t, n)")[0] for p in pairs]
        same += wps[0] == wps[1]
    assert same == 0, f"{same} of 600 swapped tables kept their fingerprint"


def test_the_postgres_record_fingerprint_tells_rows_apart(execute) -> None:
    """Issue 37, session 20: the checked release's fingerprint and the pattern proof hash each
    row by its record (postgres_record_hash_sql: hash_record_extended, linear in the fields'
    hashes, mixed by hashint8extended). A NULL and an empty string, a value moved to the next
    column, two columns' values exchanged in one row, a row twice instead of two rows, a value
    changed in one row of 2,000: each changes the fingerprint; the same rows in another order
    keep it. The weighted form over a table grouped with its counts equals the plain form's sums
    over its records (the pattern proof)."""
    call = _fingerprint_macros()
    cols = ["a", "b", "c"]
    record = call("postgres_record_fingerprint_select_sql")(cols, "", None, ["r", "f"])

    def fp(values: str) -> tuple:
        return execute(f"select {record} from (values {values}) as v(a, b, c)")[0]
    base = fp("('1', 'x', null), ('2', 'y', 'z')")
    assert fp("('2', 'y', 'z'), ('1', 'x', null)") == base
    for other in ("('1', 'x', ''), ('2', 'y', 'z')", "('1', null, 'x'), ('2', 'y', 'z')",
                  "('1', null, 'x'), ('2', 'z', 'y')", "('1', 'x', null), ('1', 'x', null)",
                  "('1', 'x', null), ('2', 'y', 'z '), ('2', 'y', 'z ')"):
        assert fp(other) != base, other
    rows = "(select cast(g as text) as a, repeat('x', g % 13) as b, cast(g % 3 as text) as c" \
           " from generate_series(1, 2000) as g) as v"
    edited = rows.replace("cast(g % 3 as text) as c", "case when g = 777 then '9'"
                          " else cast(g % 3 as text) end as c")
    assert execute(f"select {record} from {rows}") != execute(f"select {record} from {edited}")
    weighted = call("postgres__weighted_fingerprint_select_sql")(["b", "c"], "", "n", ["r", "f"])
    flag = call("postgres__weighted_fingerprint_select_sql")(["b", "c"], "", "1", ["r", "f"])
    grouped = execute(f"select {weighted} from (select b, c, count(*) as n from {rows}"
                      " group by b, c) as g")
    assert grouped == execute(f"select {flag} from {rows}")


def test_the_postgres_fingerprint_sums_the_hashes_exactly(execute) -> None:
    """Issue 37: postgres__fingerprint_select_sql adds the rows' bigint hashes with sum(bigint)
    (exact, numeric result) instead of casting each to numeric first: the fingerprint must be
    the one the numeric sums give (the value recorded by earlier builds), with and without a
    `present` condition, on hashes of both signs whose sum leaves bigint."""
    call = _fingerprint_macros()
    cols = ["rid", "note"]
    rows = "(select cast(g as text) as rid, repeat('x', g % 13) as note, g % 3 as k" \
           " from generate_series(1, 5000) as g) as v"
    rec = "row(cast(rid as text), cast(note as text))"
    for present in (None, "k <> 0"):
        when = ("", "") if present is None else (f"case when {present} then ", " end")
        count = "count(*)" if present is None else f"count(case when {present} then 1 end)"
        numeric = execute(
            f"select {count}, md5('rid|note' || '#' || cast({count} as text) || '#'"
            f" || cast(coalesce(sum({when[0]}cast(hashtextextended(cast({rec} as text), 0)"
            f" as numeric){when[1]}), 0) as text) || ':'"
            f" || cast(coalesce(sum({when[0]}cast(hashtextextended(cast({rec} as text), 1)"
            f" as numeric){when[1]}), 0) as text)) from {rows}")[0]
        macro = call("postgres__fingerprint_select_sql")(cols, "", present,
                                                         ["row_count", "fingerprint"])
        assert execute(f"select {macro} from {rows}")[0] == numeric
        if present is None:  # the table's fingerprint: the row text built once, same value
            table = str(call("postgres__table_fingerprint_sql")(rows, cols))
            assert table.count("cast(row(") == 1 and "offset 0" in table
            assert execute(table)[0] == numeric
    big = execute(f"select abs(sum(cast(hashtextextended(cast({rec} as text), 0) as numeric)))"
                  f" > 9223372036854775807 from {rows}")[0][0]
    assert big  # the sum leaves bigint: sum(bigint) must not overflow


def test_the_copy_read_gives_the_fetched_frame(server) -> None:
    """Issue 37: the Python steps read a PostgreSQL table by COPY ... TO STDOUT as CSV, parsed
    by Arrow (copy_csv_to_frame), instead of fetching its rows one by one (rows_to_frame): the
    same frame, types, nulls and empty strings included (a null is an unquoted empty field, an
    empty string a quoted one; a row of one null column is an empty line), for every column
    kind the reader takes (POSTGRES_COPY_KINDS), an all-null column and no rows."""
    import io

    import pandas as pd

    from dbt_deid.dbt_side.engine.python_nodes import (
        POSTGRES_COPY_KINDS,
        copy_csv_to_frame,
        rows_to_frame,
    )
    con = server.connect()
    con.autocommit = True
    tables = {
        "kinds": "select * from (values ('a,b', 1, cast(1 as smallint), cast(0.1 as float8),"
                 " cast(1.5 as real), true, cast('x' as varchar), cast(null as text)),"
                 " ('', null, 2, cast('NaN' as float8), null, false, '', null),"
                 " (null, -9223372036854775807, null, cast('-Infinity' as float8),"
                 " cast('Infinity' as real), null, 'say \"hi\"' || chr(10) || 'there', null),"
                 " ('é ü 中', 0, 3, 1e-300, 3.4e38, true, null, null))"
                 " as v(t, i, s, f, r, b, v, n)",
        "single": "select * from (values ('x'), (null), (''), (null)) as v(t)",
        "empty": "select cast('a' as text) as t, 1 as i where false",
    }
    with con.cursor() as cur:
        for name, sql in tables.items():
            cur.execute(f"drop table if exists copy_{name}")
            cur.execute(f"create table copy_{name} as {sql}")
            cur.execute(f"select * from copy_{name}")
            columns = [d[0] for d in cur.description]
            kinds = [POSTGRES_COPY_KINDS[d[1]] for d in cur.description]
            fetched = rows_to_frame(columns, cur.fetchall())
            out = io.BytesIO()
            cur.copy_expert(f"copy (select * from copy_{name}) to stdout"
                            " with (format csv, encoding 'UTF8')", out)
            copied = copy_csv_to_frame(out.getvalue(), columns, kinds)
            pd.testing.assert_frame_equal(copied, fetched, check_exact=True)
            assert len(copied) == {"kinds": 4, "single": 4, "empty": 0}[name]
    con.close()


def test_the_postgres_gate_scan_builds_each_row_text_once(execute, server) -> None:
    """Issue 37: postgres__gate_input_unchanged_sql builds each fingerprint's row text once per
    row (one-element arrays unnested in FROM) where the default query builds it once per seed,
    and runs the full join of the source and the checked release as a left join and an anti
    join (postgres_gate_scan_union, session 16): the same row (changed records, the checked
    release's, the source's and the pattern proof's counts and fingerprints, the level
    mismatches), with a record changed, one missing from the release and one released without
    a source record; then with a source record id twice and null record ids on both sides
    (the full join's rows: a release row once per source match, a null id matching nothing);
    the postgres form names each text once, and sums the pattern proof's hashes as bigint where
    the row is present (session 18: no numeric product per row; rows absent from the release,
    whose pattern text is all nulls, must not count)."""
    import re
    from types import SimpleNamespace

    from tests.macro_render import macro_caller, raise_compiler_error
    root = Path(__file__).resolve().parents[2]
    files = [root / "macros" / "gates" / "gates.sql",
             root / "macros" / "gates" / "gate_input_unchanged_postgres.sql",
             root / "macros" / "gates" / "gate_scan_union_postgres.sql",
             root / "macros" / "gates" / "released_levels_gate.sql",
             root / "macros" / "publish" / "table_fingerprint.sql",
             root / "macros" / "gates" / "checked_fingerprint.sql",
             root / "macros" / "generalize" / "original_value_sources.sql"]
    con = server.connect()
    con.autocommit = True

    def columns_of(sql: str) -> SimpleNamespace:
        with con.cursor() as cur:
            cur.execute(sql)
            return SimpleNamespace(column_names=[d[0] for d in cur.description])
    call = macro_caller(files, lambda call: {
        "exceptions": SimpleNamespace(raise_compiler_error=raise_compiler_error),
        "execute": True, "modules": SimpleNamespace(re=re), "run_query": columns_of,
        "dbt": SimpleNamespace(type_string=lambda: "text"),
        "dbt_deid": SimpleNamespace(
            own=lambda m: m, ident=lambda n: n,
            literal=lambda v: "'" + str(v).replace("'", "''") + "'",
            source_input=lambda cfg: "gate_src", release_source=lambda cfg: "gate_src",
            release_ref=lambda name: "gate_hierarchy",
            original_value_sources=call("original_value_sources"),
            released_levels_flags_sql=call("default__released_levels_flags_sql"),
            released_levels_sums_sql=call("released_levels_sums_sql"),
            postgres_gate_scan_union=call("postgres_gate_scan_union"),
            default__gate_input_unchanged_sql=call("default__gate_input_unchanged_sql"),
            fingerprint_select_sql=lambda columns, prefix="", present=None,
            names=("row_count", "fingerprint"): call("postgres__fingerprint_select_sql")(
                columns, prefix, present, names),
            weighted_fingerprint_select_sql=call("postgres__weighted_fingerprint_select_sql"),
            postgres_flag_fingerprint_select_sql=call("postgres_flag_fingerprint_select_sql"),
            postgres_fingerprint_row_text=call("postgres_fingerprint_row_text"),
            postgres_fingerprint_sums_sql=call("postgres_fingerprint_sums_sql"),
            postgres_record_hash_sql=call("postgres_record_hash_sql"),
            postgres_record_fingerprint_select_sql=call("postgres_record_fingerprint_select_sql"),
            _fingerprint_count=call("_fingerprint_count"),
            _fingerprint_when=call("_fingerprint_when"))})

    checked = macro_caller([root / "macros" / "gates" / "checked_fingerprint.sql",
                            root / "macros" / "publish" / "table_fingerprint.sql"], lambda call: {
        "run_query": lambda sql: SimpleNamespace(rows=execute(sql)),
        "adapter": SimpleNamespace(get_columns_in_relation=lambda rel: [
            SimpleNamespace(name=c) for c in columns_of(f"select * from {rel}").column_names]),
        "dbt_deid": SimpleNamespace(
            ident=lambda n: n, literal=lambda v: "'" + str(v).replace("'", "''") + "'",
            postgres_record_hash_sql=call("postgres_record_hash_sql"),
            postgres_record_fingerprint_select_sql=call("postgres_record_fingerprint_select_sql"),
            _fingerprint_count=call("_fingerprint_count"),
            _fingerprint_when=call("_fingerprint_when"))})

    def same_row(default: str, postgres: str, truth_columns: list[str],
                 alone: bool = True) -> tuple:
        """The two forms' row: equal but for the checked release's fingerprint (column 2),
        which the PostgreSQL form takes by the rows' record hashes (session 20; the pattern
        proof's, column 6, is the record form in both here: weighted_fingerprint_select_sql).
        With `alone` (each checked row joined once), equal to the checked release's own
        (checked_fingerprint's query) and the pattern proof to the weighted fingerprint of the
        checked release grouped (the pattern table's)."""
        rows, got = execute(default), execute(postgres)
        assert rows[0][:2] + rows[0][3:] == got[0][:2] + got[0][3:]
        assert got[0][2] != rows[0][2]
        if not alone:
            return got
        # what a publish in a later invocation compares the gate table's checked_hash with
        own = checked("postgres__checked_fingerprint")("gate_truth")
        assert got[0][1:3] == (own["rows"], own["hash"])
        grouped = execute("select " + str(call("postgres__weighted_fingerprint_select_sql")(
            ["sex", "age"], "", "n", ["r", "f"])) + " from (select sex, age, count(*) as n"
            " from gate_truth group by sex, age) as p")[0]
        assert got[0][5:7] == grouped
        return got
    # the missing label is a literal of the select list: one holding " t." or "src." stays as
    # it is (review 16, L3: the rewrite changed it and the scan counted record 2 as changed)
    for label in ("unk. t.b.d.", "n/a (src.x)", "<missing>"):
        execute("drop table if exists gate_src; drop table if exists gate_truth;"
                " drop table if exists gate_hierarchy")
        execute("create table gate_src as select * from (values (1, 'F', 23, 'a'),"
                " (2, 'M', null, ''), (3, 'F', 31, null), (4, 'M', 35, 'b,c'), (5, 'F', 40, 'x'))"
                " as v(rid, sex, age, note)")
        execute("create table gate_truth as select * from (values"
                " (1, 'F', 'F', 'F', '20-39', '20-39', '23'),"
                " (2, 'M', 'M', 'M', null, '" + label + "', '" + label + "'),"
                " (3, 'F', 'F', 'F', '20-39', '20-39', '32'), (4, null, 'M', 'M',"
                " '20-39', '20-39', '35'), (6, 'M', 'M', 'M', '40-59', '40-59', '41'))"
                " as v(rid, sex, sex__generalized, sex__original, age, age__generalized,"
                " age__original)")
        execute("create table gate_hierarchy as select * from (values ('sex', 0, 'F', 'F'),"
                " ('sex', 0, 'M', 'M'), ('age', 1, '23', '20-39'), ('age', 1, '32', '20-39'),"
                " ('age', 1, '35', '20-39'), ('age', 1, '41', '40-59'))"
                " as v(qi_name, level, original_value, generalized_value)")
        cfg = {"record_id": "rid", "missing_label": label, "sample": None,
               "qis": [{"name": "sex", "column": "sex"}, {"name": "age", "column": "age"}]}
        truth_columns = ["rid", "sex", "sex__generalized", "sex__original", "age",
                         "age__generalized", "age__original"]
        for levels in (None, {"sex": 0, "age": 1}):
            args = ("gate_truth", cfg, truth_columns, ["rid", "sex", "age", "note"],
                    ["sex", "age"], levels, None)
            default = str(call("default__gate_input_unchanged_sql")(*args))
            postgres = str(call("postgres__gate_input_unchanged_sql")(*args))
            # session 20: the source's row text alone, once per row
            assert default.count("cast(row(") == 4 and postgres.count("cast(row(") == 1
            assert "full outer join" in default and "full outer join" not in postgres
            assert "union all" in postgres and "unnest(array[" in postgres
            # session 18: the pattern proof's 0/1 weights as bigint sums of the present rows
            assert "as numeric) * (" in default and "as numeric) * (" not in postgres
            rows = same_row(default, postgres, truth_columns)
            assert rows[0][0] == 2  # record 3 changed, 5 not released (suppressed: no change)
            assert rows[0][1] == 5 and rows[0][3] == 5  # the release's rows, the source's rows
            if levels is not None:  # record 3's age 32 is not 31's band: no mismatch (its own)
                assert rows[0][-2:] == (0, 0), rows
    execute("insert into gate_src values (4, 'M', 35, 'again'), (null, 'F', 50, 'no id')")
    execute("insert into gate_truth values (null, 'F', 'F', 'F', '40-59', '40-59', '50')")
    for levels in (None, {"sex": 0, "age": 1}):
        args = ("gate_truth", cfg, truth_columns, ["rid", "sex", "age", "note"], ["sex", "age"],
                levels, None)
        rows = same_row(str(call("default__gate_input_unchanged_sql")(*args)),
                        str(call("postgres__gate_input_unchanged_sql")(*args)), truth_columns,
                        alone=False)
        assert rows[0][1] == 7 and rows[0][3] == 7  # record 4's row twice; the null ids once
    con.close()


def test_the_postgres_risk_cdf_equals_the_default_on_postgres(execute) -> None:
    """Issue 37, session 18: postgres__risk_cdf_sql partitions each window by a bigint key of
    its columns first (postgres_partition_key_sql: hash_record_extended of their row), then
    the columns. The same rows and column types as default__risk_cdf_sql (El Emam et al. 2009
    (CJHP), Figure 4), both run on PostgreSQL, on random record and pattern tables with NULL
    (suppressed) cells, a parenthesised query, combinations sharing columns, the original
    stage's shared column (same_values), and a numeric column whose equal values have other
    texts (1.0, 1.00: a key hashing the values' text would split their class)."""
    import random
    from types import SimpleNamespace

    from tests.macro_render import macro_caller
    from tests.unit.test_smallest_class_patterns import COMBINATIONS
    root = Path(__file__).resolve().parents[2]
    files = [*sorted((root / "macros" / "risk").glob("*.sql")),
             root / "macros" / "risk_suite" / "diagnostics_sql.sql",
             root / "macros" / "risk_suite" / "risk_cdf_at_size.sql",
             root / "macros" / "risk_suite" / "risk_cdf_postgres.sql"]
    call = macro_caller(files, lambda call: {
        "dbt_deid": SimpleNamespace(
            ident=lambda n: '"' + n + '"', literal=lambda v: "'" + str(v).replace("'", "''") + "'",
            postgres_partition_key_sql=call("postgres_partition_key_sql"),
            risk_stage_columns=call("default__risk_stage_columns"),
            risk_cdf_at_size_sql=call("risk_cdf_at_size_sql"),
            smallest_class_patterns_sql=call("default__smallest_class_patterns_sql"),
            class_sizes_sql=call("default__class_sizes_sql"),
            cte_computed_once=lambda sql: sql),
        "dbt": SimpleNamespace(type_bigint=lambda: "bigint")})
    for seed in (1, 2, 3):
        rng = random.Random(seed)

        def value(choices: list[str], rng: random.Random = rng) -> str:
            return "null" if rng.random() < 0.15 else rng.choice(choices)
        rows = [f"({i}, {value(['1', '2', '3', '4'])}, {value(['1', '2'])},"
                f" {value(['1', '2', '3', '4'])}, {value(['1', '2'])},"
                f" {value(['1.0', '1.00', '2.5'])})" for i in range(400)]
        execute("drop table if exists cdf_recs; drop table if exists cdf_pats;"
                " drop table if exists cdf_orig")
        execute("create table cdf_recs as select rid, cast(a as text) as a, cast(b as text) as b,"
                " cast(c as text) as c, case d when 1 then '<missing>' when 2 then '1' end as d,"
                " cast(e as numeric) as e from (values " + ", ".join(rows) + ")"
                " as v(rid, a, b, c, d, e)")
        execute("create table cdf_pats as select a, b, c, d, e, count(*) as n from cdf_recs"
                " group by a, b, c, d, e")
        execute("create table cdf_orig as select rid, coalesce(a, '<missing>') as a__original,"
                " coalesce(b, '<missing>') as b__original, coalesce(c, '<missing>') as c__original,"
                " coalesce(d, '<missing>') as d__original, e as e__original from cdf_recs")
        for combinations in (COMBINATIONS, [["a", "b", "c"]], [["b", "a"], ["a", "b"]],
                             [["a", "e"], ["b", "e", "c"]]):
            cases = [(relation, count, "published", None) for relation, count in
                     (("cdf_recs", None), ("cdf_pats", "n"), ("(select * from cdf_pats)", "n"))]
            cases.append(("cdf_orig", None, "original", {"b": "a"}))
            for relation, count, stage, same in cases:
                args = (relation, "rid", combinations, stage, count, same)
                want_sql = str(call("default__risk_cdf_sql")(*args))
                got_sql = str(call("postgres__risk_cdf_sql")(*args))
                assert "hash_record_extended(row(" in got_sql
                want = execute(f"select * from ({want_sql}) as w order by 1, 2, 3, 4")
                got = execute(f"select * from ({got_sql}) as g order by 1, 2, 3, 4")
                assert got == want and len(got) > len(combinations), (seed, relation, stage)
                types = [execute(f"select pg_typeof(class_size), pg_typeof(records),"
                                 f" pg_typeof(cumulative_share) from ({q}) as t limit 1")
                         for q in (want_sql, got_sql)]
                assert types[0] == types[1]
