"""The refresh's SQL (macros/releases/refresh_line.sql: refresh_pairs_sql, the pattern table of a
refresh, and refresh_records_sql, the records deid_suppressed joins the map onto) rendered
outside dbt and run on DuckDB against a small per-record store, checked against the column
meanings docs/living-release.md states ("What a refresh computes"), computed here in Python
record by record: kept, suppressed-then-kept, changed (two states), deleted, returned after a
version away, and new records."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import duckdb
import pytest

from tests.macro_render import macro_caller

ROOT = Path(__file__).resolve().parents[2]
QIS = ["age", "zip"]
KEY = "secret"

# The store: (release_id, version, record id, {qi: (published cell or None, true value)}).
# Version 1 (r1), version 2 (r2, the previous version of the refresh), and a row of another
# line (rx, left out by line_rows_condition).
STORE: list[tuple[str, int, int, dict[str, tuple[str | None, str]]]] = [
    # 1: kept in both versions, unchanged
    ("r1", 1, 1, {"age": ("30", "30"), "zip": ("K1", "K1")}),
    ("r2", 2, 1, {"age": ("30", "30"), "zip": ("K1", "K1")}),
    # 2: zip suppressed in version 1, revealed in none; age suppressed only in version 2
    ("r1", 1, 2, {"age": ("40", "40"), "zip": (None, "K2")}),
    ("r2", 2, 2, {"age": (None, "40"), "zip": (None, "K2")}),
    # 3: changed between versions 1 and 2 (two states), current state is version 2's
    ("r1", 1, 3, {"age": ("50", "50"), "zip": ("K3", "K3")}),
    ("r2", 2, 3, {"age": ("60", "60"), "zip": (None, "K3")}),
    # 4: deleted after version 2
    ("r1", 1, 4, {"age": ("20", "20"), "zip": ("K4", "K4")}),
    ("r2", 2, 4, {"age": ("20", "20"), "zip": ("K4", "K4")}),
    # 5: in version 1 only (away from version 2), back now
    ("r1", 1, 5, {"age": (None, "70"), "zip": ("K5", "K5")}),
    # 6: changed between versions 1 and 2 and back to version 1's values now
    ("r1", 1, 6, {"age": ("80", "80"), "zip": ("K6", "K6")}),
    ("r2", 2, 6, {"age": ("90", "90"), "zip": ("K6", "K6")}),
    # another line's row of record 1: never read
    ("rx", 1, 1, {"age": ("99", "99"), "zip": ("Z9", "Z9")}),
]
# The current records (deid_generalized): record id -> true values at the line's levels.
CURRENT = {1: {"age": "30", "zip": "K1"}, 2: {"age": "40", "zip": "K2"},
           3: {"age": "60", "zip": "K9"}, 5: {"age": "70", "zip": "K5"},
           6: {"age": "80", "zip": "K6"}, 7: {"age": "30", "zip": "K1"},
           8: {"age": "40", "zip": "K2"}}
PREVIOUS = "r2"


def _sql(value: object) -> str:
    return "null" if value is None else str(value) if isinstance(value, int) else (
        "'" + str(value).replace("'", "''") + "'")


def _load(execute: Callable[[str], list[tuple]]) -> None:
    """The store, the key and the current records, through ``execute`` (DuckDB here, a private
    PostgreSQL server where tests/integration/test_combined_levels_postgres.py collects the
    tests)."""
    for table in ("lp_key", "lp_store", "lp_gen"):
        execute(f"drop table if exists {table}")
    execute("create table lp_key as select cast('secret' as varchar) as key_value")
    cols = ", ".join(f"{q} varchar, {q}__generalized varchar" for q in QIS)
    execute("create table lp_store (release_name varchar, release_id varchar,"
            f" release_version bigint, record_key varchar, {cols})")
    for rid, version, record, cells in STORE:
        values = []
        for q in QIS:
            cell, true = cells[q]
            # the writer stores the true value only where it is not the published cell
            values += [cell, None if cell == true else true]
        execute("insert into lp_store values (" + ", ".join(_sql(v) for v in (
            "other" if rid == "rx" else "line", rid, version)) + ", md5("
            + _sql(KEY + "|" + str(record)) + "), " + ", ".join(_sql(v) for v in values) + ")")
    execute("create table lp_gen (rid integer, " + ", ".join(f"{q} varchar" for q in QIS) + ")")
    for record, values in CURRENT.items():
        execute("insert into lp_gen values (" + ", ".join(_sql(v) for v in (
            record, *(values[q] for q in QIS))) + ")")


@pytest.fixture
def execute() -> Callable[[str], list[tuple]]:
    con = duckdb.connect()
    return lambda sql: con.execute(sql).fetchall()


def _render(macro: str, line_extra: dict[str, Any] | None = None, split: bool = True) -> str:
    """``split``: refresh_states_split (records with one state skip the window; the rows must
    be the same either way)."""
    def context(call: Any) -> dict[str, Any]:
        return {
            "dbt_deid": SimpleNamespace(
                ident=lambda n: '"' + n + '"', own=lambda m: m,
                literal=lambda v: "'" + str(v).replace("'", "''") + "'",
                keyed_record_hash_sql=lambda e, k: (
                    f"md5({k}.key_value || '|' || cast({e} as varchar))"),
                line_rows_condition=lambda cfg, alias="": "release_name = 'line'",
                refresh_pair_columns=call("refresh_pair_columns"),
                _refresh_states_ctes=call("_refresh_states_ctes"),
                refresh_states_split=lambda: split),
            "dbt": SimpleNamespace(type_string=lambda: "varchar"),
            "adapter": SimpleNamespace(dispatch=lambda name, package: call("default__" + name)),
            "execute": True,
        }

    call = macro_caller([ROOT / "macros" / "releases" / "refresh_line.sql"], context)
    cfg = {"qi_names": QIS, "record_id": "rid"}
    line = {"store": "lp_store", "key": "lp_key", "previous_release_id": PREVIOUS,
            "release_ids": ["r1", "r2"], **(line_extra or {})}
    return str(call(macro)(cfg, "lp_gen", line))


def _expected() -> tuple[Counter, dict[int, dict[str, Any]]]:
    """The pairs and each current record's pair columns, from the documented meanings: per
    record key and true tuple (a state), the finest cell any version revealed (`revealed`); the
    record's latest state is the one in the previous version, else the one last published;
    `published` is the previous version's cell when it holds that state, else `revealed`;
    every state that is not a current record's latest one is a row with null current values.
    `deid_history` (a current record's latest state only): per release of the line, sorted,
    '1' when it holds the latest state, '2' another state, '0' not the record."""
    states: dict[tuple[int, tuple], dict[str, Any]] = {}
    for rid, version, record, cells in STORE:
        if rid == "rx":
            continue
        true = tuple(cells[q][1] for q in QIS)
        s = states.setdefault((record, true), {"versions": [], "revealed": [None] * len(QIS),
                                               "previous": None})
        s["versions"].append(version)
        for i, q in enumerate(QIS):
            cell = cells[q][0]
            if cell is not None:
                s["revealed"][i] = cell
        if rid == PREVIOUS:
            s["previous"] = [cells[q][0] for q in QIS]
    latest: dict[int, tuple] = {}
    for (record, true), s in states.items():
        rank = (s["previous"] is not None, max(s["versions"]))
        if record not in latest or rank > latest[record][0]:
            latest[record] = (rank, true)
    pairs: Counter = Counter()
    per_record: dict[int, dict[str, Any]] = {}

    def columns(record: int, true: tuple) -> tuple:
        s = states[(record, true)]
        published = s["previous"] if s["previous"] is not None else s["revealed"]
        return (*true, *published, *s["revealed"])

    def history(record: int) -> str:
        held = {(rid, t) for rid, _v, r, cells in STORE if r == record and rid != "rx"
                for t in [tuple(cells[q][1] for q in QIS)]}
        out = ""
        for rid in ("r1", "r2"):
            there = [t for r, t in held if r == rid]
            out += "0" if not there else "1" if there[0] == latest[record][1] else "2"
        return out

    for record, values in CURRENT.items():
        current = tuple(values[q] for q in QIS)
        if record in latest:
            earlier = columns(record, latest[record][1])
        else:
            earlier = (None,) * (3 * len(QIS))
        pairs[(*current, *earlier, history(record) if record in latest else None)] += 1
        per_record[record] = dict(zip(
            [f"{q}{s}" for s in ("__earlier", "__published", "__revealed") for q in QIS],
            earlier, strict=True))
        per_record[record]["deid_history"] = history(record) if record in latest else None
    for record, true in states:
        if record in CURRENT and latest[record][1] == true:
            continue
        pairs[((None,) * len(QIS)) + columns(record, true) + (None,)] += 1
    return pairs, per_record


KEYS = [*QIS, *(f"{q}{s}" for s in ("__earlier", "__published", "__revealed") for q in QIS),
        "deid_history"]


@pytest.mark.parametrize("split", [True, False])
def test_the_pairs_are_the_documented_ones(execute: Callable[[str], list[tuple]],
                                           split: bool) -> None:
    _load(execute)
    cols = ", ".join(f'"{c}"' for c in KEYS)
    sql = _render("default__refresh_pairs_sql", split=split)
    rows = execute(f"select {cols}, n from ({sql}) as x")
    got = Counter({tuple(r[:-1]): r[-1] for r in rows})
    assert sum(got.values()) == sum(r[-1] for r in rows)
    expected, _ = _expected()
    assert got == expected


def _expected_detail() -> dict[int, dict[str, str | None]]:
    """Per current record with a stored state, the per-release detail the linked guard reads
    (dbt_deid.living.pairs.history_detail_columns, before grouping): per release i of the line
    (r1, r2) and QI, `<qi>__was<i>`, its true value there when r<i> holds another state than
    its latest (else None), and `<qi>__own<i>`, its cell there (None: suppressed or not
    held)."""
    _, per_record = _expected()
    out: dict[int, dict[str, str | None]] = {}
    for record in CURRENT:
        if per_record[record]["deid_history"] is None:
            continue
        latest = tuple(per_record[record][f"{q}__earlier"] for q in QIS)
        row: dict[str, str | None] = {}
        for i, rid in enumerate(("r1", "r2"), start=1):
            there = [c for r, _v, rec, c in STORE if r == rid and rec == record]
            true = tuple(there[0][q][1] for q in QIS) if there else None
            for j, q in enumerate(QIS):
                row[f"{q}__was{i}"] = true[j] if true is not None and true != latest else None
                row[f"{q}__own{i}"] = there[0][q][0] if there else None
        out[record] = row
    return out


@pytest.mark.parametrize("split", [True, False])
def test_the_pairs_carry_each_release_detail(execute: Callable[[str], list[tuple]],
                                             split: bool) -> None:
    """Review 11 final, M1: per pairs row and release, the smallest and largest of its
    records' true values there (where that release holds another state than the latest) and
    own cells there; null on rows of new records and of states no longer current."""
    _load(execute)
    detail = [f"{q}__{w}{i}" for i in (1, 2) for q in QIS for w in ("was", "own")]
    names = [f"{d}_{end}" for d in detail for end in ("min", "max")]
    cols = ", ".join(f'"{c}"' for c in KEYS + names)
    sql = _render("default__refresh_pairs_sql", split=split)
    rows = execute(f"select {cols} from ({sql}) as x")
    _, per_record = _expected()
    expected_detail = _expected_detail()
    want: dict[tuple, dict[str, str | None]] = {}
    for record, values in CURRENT.items():
        key = (*(values[q] for q in QIS), *(per_record[record][c] for c in KEYS[len(QIS):]))
        got = want.setdefault(key, {})
        for d in detail:
            v = expected_detail.get(record, {}).get(d)
            for end, pick in (("min", min), ("max", max)):
                old = got.get(f"{d}_{end}")
                got[f"{d}_{end}"] = v if old is None else old if v is None else pick(old, v)
    seen = 0
    for r in rows:
        key, values = tuple(r[: len(KEYS)]), dict(zip(names, r[len(KEYS):], strict=True))
        if key[0] is None:  # a state no longer current
            assert set(values.values()) == {None}
            continue
        assert values == want[key], key
        seen += 1
    assert seen == len(want)
    # record 3 (changed between r1 and r2): r1 holds its older state (age 50): its was there
    assert expected_detail[3]["age__was1"] == "50" and expected_detail[3]["age__was2"] is None


@pytest.mark.parametrize("split", [True, False])
def test_each_current_record_carries_its_pair_columns(
        execute: Callable[[str], list[tuple]], split: bool) -> None:
    _load(execute)
    sql = _render("default__refresh_records_sql", split=split)
    names = [f"{q}{s}" for s in ("__earlier", "__published", "__revealed") for q in QIS]
    names.append("deid_history")
    rows = execute(f"select rid, {', '.join(names)} from ({sql}) as x order by rid")
    _, expected = _expected()
    assert [r[0] for r in rows] == sorted(CURRENT)
    for r in rows:
        assert dict(zip(names, r[1:], strict=True)) == expected[r[0]], r[0]


def test_states_that_differ_only_in_level_are_no_change() -> None:
    """Review 11 final, L1: version 1 (r1) was at other levels (age in 10-year bands), version
    2 (r2, the gate accepted it at mixed levels) and this refresh at 1-year ages; nothing
    changed. Each record's r1 state is another state only by its level, which the gate's SQL
    (linked_changes_sql.sql, deid_restated compares it at the coarser level: equal there, so no
    change; review 12b H1) does not count as a change:
    `deid_history` writes '3' there, not '2', and the refresh's linked guard has no target.
    Before the fix every record had history '21', was a target counted 1, and the refresh
    refused: "changed records linked across versions: age+zip: 6 of 6 consistent with fewer
    than k = 2 (smallest 1); ..."."""
    import pandas as pd

    from dbt_deid.living import refresh
    from tests.living_line import LINKED_REFUSAL

    ages = {1: "31", 2: "31", 3: "31", 4: "45", 5: "45", 6: "45"}
    con = duckdb.connect()
    con.execute("create table lp_key as select 'secret' as key_value")
    con.execute("create table lp_store (release_name varchar, release_id varchar, release_version"
                " bigint, record_key varchar, age varchar, age__generalized varchar,"
                " zip varchar, zip__generalized varchar)")
    con.execute("create table lp_gen (rid integer, age varchar, zip varchar)")
    for record, age in ages.items():
        for rid, version, value in (("r1", 1, age[0] + "0-" + age[0] + "9"), ("r2", 2, age)):
            con.execute("insert into lp_store values ('line', ?, ?, md5(? || '|' || ?), ?, null,"
                        " 'K1', null)", [rid, version, KEY, str(record), value])
        con.execute("insert into lp_gen values (?, ?, 'K1')", [record, age])
    sql = _render("default__refresh_pairs_sql", {"other_levels": ["r1"]})
    frame = con.execute(sql).df()
    frame = frame.astype(object).where(frame.notna(), None)
    histories = set(frame["deid_history"].dropna())
    assert histories == {"31"}, histories
    result = refresh(pd.DataFrame(frame), 2, [tuple(QIS)])
    assert [r for r in result.refusals() if r.startswith(LINKED_REFUSAL)] == []
    (check,) = result.linked
    assert check.changed_records == 0
