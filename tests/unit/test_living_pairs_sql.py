"""The refresh's SQL (macros/releases/refresh_line.sql: refresh_pairs_sql, the pattern table of a
refresh, and refresh_records_sql, the records deid_suppressed joins the map onto) rendered
outside dbt and run on DuckDB against a small per-record store, checked against the column
meanings docs/living-release.md states ("What a refresh computes"), computed here in Python
record by record: kept, suppressed-then-kept, changed (two states), deleted, returned after a
version away, and new records."""

from __future__ import annotations

import functools
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


def _context(split: bool = True) -> Callable[[Any], dict[str, Any]]:
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
                _refresh_pairs_long=call("_refresh_pairs_long"),
                refresh_states_split=lambda: split),
            "dbt": SimpleNamespace(type_string=lambda: "varchar"),
            "adapter": SimpleNamespace(dispatch=lambda name, package: call("default__" + name)),
            "execute": True,
        }
    return context


#: the pairs' forms (refresh_line.sql, _refresh_pairs_long): forced wide, forced long
FORMS = [False, True]
#: (refresh_states_split, long form): the wide form with and without the split (main's tests),
#: the long form with it (the random tests below run it without on odd seeds)
SPLIT_FORMS = [(True, False), (False, False), (True, True)]


def _render(macro: str, line_extra: dict[str, Any] | None = None, split: bool = True,
            long: bool | None = None) -> str:
    """``split``: refresh_states_split (records with one state skip the window; the rows must
    be the same either way). ``long``: the pairs' form forced (None: the macro's choice)."""
    call = macro_caller([ROOT / "macros" / "releases" / "refresh_line.sql"], _context(split))
    cfg = {"qi_names": QIS, "record_id": "rid"}
    line = {"store": "lp_store", "key": "lp_key", "previous_release_id": PREVIOUS,
            "release_ids": ["r1", "r2"], "pairs_long": long, **(line_extra or {})}
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


@pytest.mark.parametrize(("split", "long"), SPLIT_FORMS)
def test_the_pairs_are_the_documented_ones(execute: Callable[[str], list[tuple]],
                                           split: bool, long: bool) -> None:
    _load(execute)
    cols = ", ".join(f'"{c}"' for c in KEYS)
    sql = _render("default__refresh_pairs_sql", split=split, long=long)
    rows = execute(f"select {cols}, n from ({sql}) as x"
                   + (" where deid_detail_releases is null" if long else ""))
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


def _detail_as_columns(flat: list[tuple], names: list[str]) -> list[tuple]:
    """The long form's rows (KEYS, deid_detail_releases, the detail values, n) back to the wide
    form's (KEYS, then per release and QI ``was``/``own`` min and max: ``names``): each detail
    row's values placed at the releases its mask names (one detail row per pairs row and
    release, asserted)."""
    long_names = [f"{q}__{w}_{end}" for q in QIS for w in ("was", "own") for end in ("min", "max")]
    by_key: dict[tuple, dict[str, str | None]] = {}
    seen_releases: Counter = Counter()
    for r in flat:
        key, mask, values = tuple(r[: len(KEYS)]), r[len(KEYS)], r[len(KEYS) + 1: -1]
        got = by_key.setdefault(key, dict.fromkeys(names))
        if mask is None:
            assert r[-1] > 0
            continue
        assert r[-1] == 0 and len(mask) == 2 and set(mask) <= {"0", "1"} and key[0] is not None
        for release in (i for i, c in enumerate(mask, start=1) if c == "1"):
            seen_releases[(key, release)] += 1
            for name, v in zip(long_names, values, strict=True):
                q, rest = name.split("__", 1)
                w, end = rest.split("_")
                got[f"{q}__{w}{release}_{end}"] = v
    assert set(seen_releases.values()) <= {1}  # one detail row per pairs row and release
    return [(*key, *(values[n] for n in names)) for key, values in by_key.items()]


@pytest.mark.parametrize(("split", "long"), SPLIT_FORMS)
def test_the_pairs_carry_each_release_detail(execute: Callable[[str], list[tuple]],
                                             split: bool, long: bool) -> None:
    """Review 11 final, M1: per pairs row and release, the smallest and largest of its
    records' true values there (where that release holds another state than the latest) and
    own cells there; null on rows of new records and of states no longer current. Long form:
    the same values on detail rows (living.pairs.DETAIL), read back to columns here."""
    _load(execute)
    detail = [f"{q}__{w}{i}" for i in (1, 2) for q in QIS for w in ("was", "own")]
    names = [f"{d}_{end}" for d in detail for end in ("min", "max")]
    sql = _render("default__refresh_pairs_sql", split=split, long=long)
    if long:
        long_names = [f"{q}__{w}_{end}" for q in QIS for w in ("was", "own")
                      for end in ("min", "max")]
        cols = ", ".join(f'"{c}"' for c in KEYS + ["deid_detail_releases", *long_names, "n"])
        rows = _detail_as_columns(execute(f"select {cols} from ({sql}) as x"), names)
    else:
        cols = ", ".join(f'"{c}"' for c in KEYS + names)
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


@pytest.mark.parametrize(("split", "long"), SPLIT_FORMS)
def test_each_current_record_carries_its_pair_columns(
        execute: Callable[[str], list[tuple]], split: bool, long: bool) -> None:
    _load(execute)
    sql = _render("default__refresh_records_sql", split=split, long=long)
    names = [f"{q}{s}" for s in ("__earlier", "__published", "__revealed") for q in QIS]
    names.append("deid_history")
    rows = execute(f"select rid, {', '.join(names)} from ({sql}) as x order by rid")
    _, expected = _expected()
    assert [r[0] for r in rows] == sorted(CURRENT)
    for r in rows:
        assert dict(zip(names, r[1:], strict=True)) == expected[r[0]], r[0]


@pytest.mark.parametrize("long", FORMS)
def test_states_that_differ_only_in_level_are_no_change(long: bool) -> None:
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
    sql = _render("default__refresh_pairs_sql", {"other_levels": ["r1"]}, long=long)
    frame = con.execute(sql).df()
    frame = frame.astype(object).where(frame.notna(), None)
    histories = set(frame["deid_history"].dropna())
    assert histories == {"31"}, histories
    result = refresh(pd.DataFrame(frame), 2, [tuple(QIS)])
    assert [r for r in result.refusals() if r.startswith(LINKED_REFUSAL)] == []
    (check,) = result.linked
    assert check.changed_records == 0


@functools.cache
def _caller(split: bool) -> Callable[[str], Callable[..., Any]]:
    return macro_caller([ROOT / "macros" / "releases" / "refresh_line.sql"], _context(split))


def _render_line(qis: list[str], ids: list[str], long: bool | None = None,
                 other_levels: list[str] | None = None, macro: str = "default__refresh_pairs_sql",
                 split: bool = True) -> str:
    """The pairs query (or ``macro``) of a line over ``qis`` whose stored releases are ``ids``
    (the last the previous version), on the tables lp_store, lp_key, lp_gen."""
    call = _caller(split)
    line = {"store": "lp_store", "key": "lp_key", "previous_release_id": ids[-1],
            "release_ids": ids, "other_levels": other_levels or [], "pairs_long": long}
    return str(call(macro)({"qi_names": qis, "record_id": "rid"}, "lp_gen", line))


def _wide_line(execute: Callable[[str], list[tuple]], releases: int, qis: list[str]) -> list[str]:
    """A line of ``releases`` stored versions over ``qis`` loaded through ``execute`` (4
    records, each held in every version; record 1 with another first QI in the oldest, a
    record held in an older state); its release ids."""
    for table in ("lp_key", "lp_store", "lp_gen"):
        execute(f"drop table if exists {table}")
    execute("create table lp_key as select cast('secret' as varchar) as key_value")
    cols = ", ".join(f"{q} varchar, {q}__generalized varchar" for q in qis)
    execute("create table lp_store (release_name varchar, release_id varchar,"
            f" release_version bigint, record_key varchar, {cols})")
    ids = [f"r{v:03d}" for v in range(1, releases + 1)]
    rows = []
    for v, rid in enumerate(ids, start=1):
        for record in range(1, 5):
            values = [("9" if (record, v, j) == (1, 1, 0) else str(record % 2))
                      for j in range(len(qis))]
            cells = ", ".join(f"'{x}', null" for x in values)
            rows.append(f"('line', '{rid}', {v}, md5('{KEY}|{record}'), {cells})")
    execute("insert into lp_store values " + ", ".join(rows))
    execute("create table lp_gen (rid integer, " + ", ".join(f"{q} varchar" for q in qis) + ")")
    execute("insert into lp_gen values " + ", ".join(
        "(" + ", ".join([str(record)] + [f"'{record % 2}'"] * len(qis)) + ")"
        for record in range(1, 5)))
    return ids


QIS8 = [f"q{j}" for j in range(1, 9)]
KEYS8 = [*QIS8, *(f"{q}{s}" for s in ("__earlier", "__published", "__revealed") for q in QIS8),
         "deid_history"]


def test_a_nightly_line_of_eight_qis_past_49_versions_fits_postgres(
        execute: Callable[[str], list[tuple]]) -> None:
    """Issue 32 (session 16): the pairs carried 4 columns per QI and stored version
    (`<qi>__was<i>_min` ...), so a nightly line of 8 QIs passed PostgreSQL's 1,600 columns per
    table near 49 stored versions (an error in deid_patterns: nothing published, every night
    the same). Past 400 per-release columns the macro now writes the long form: the pairs
    table and the widest select list of the pairs query and of the records' query
    (deid_suppressed) stay under PostgreSQL's limits at 60 versions, and are the same as at 13
    (the first long one at 8 QIs). Main 306877c: 1,954 columns at 60 versions."""
    from tests.sql_width import widest_select

    widths = {}
    for releases in (2, 12, 13, 60):
        ids = _wide_line(execute, releases, QIS8)
        sql = _render_line(QIS8, ids)
        execute("drop table if exists lp_pairs")
        execute(f"create table lp_pairs as {sql}")
        columns = len(execute("select * from lp_pairs limit 1")[0])
        records = widest_select(_render_line(QIS8, ids, macro="default__refresh_records_sql"))
        widths[releases] = (columns, widest_select(sql), records)
    assert widths[2][0] == 4 * 8 * 2 + 34 and widths[12][0] == 4 * 8 * 12 + 34  # wide
    assert widths[60] == widths[13], widths  # long: the same width past the threshold
    assert widths[60][0] < 1600 and widths[60][1] < 1664 and widths[60][2] < 1664, widths


def test_a_line_of_sixty_versions_reads_its_detail(
        execute: Callable[[str], list[tuple]]) -> None:
    """The pairs of a line with 60 stored versions and 8 QIs (the macro's choice: long)
    materialized and read by the refresh: record 1, held in version 1 in an older state (q1
    9), is a target with its older value read in version 1 only, and its own cells in every
    version; one detail row per pairs row and set of versions with the same values."""
    import pandas as pd

    from dbt_deid.living.pairs import DETAIL, read_pairs

    ids = _wide_line(execute, 60, QIS8)
    execute("drop table if exists lp_pairs")
    execute(f"create table lp_pairs as {_render_line(QIS8, ids)}")
    names = [*KEYS8, DETAIL, *(f"{q}__{w}_{e}" for q in QIS8 for w in ("was", "own")
                                for e in ("min", "max")), "n"]
    frame = pd.DataFrame(execute("select " + ", ".join(f'"{c}"' for c in names)
                                 + " from lp_pairs"), columns=names).astype(object)
    # pairs rows: records 1, 3 and 2 + 4 (current), record 1's older state (no longer
    # current); detail rows: record 1 (version 1, the rest), 3, 2 + 4
    assert (frame[DETAIL].isna().sum(), frame[DETAIL].notna().sum()) == (4, 4)
    assert set(frame[DETAIL].dropna()) == {"1" * 60, "1" + "0" * 59, "0" + "1" * 59}
    inp = read_pairs(frame, QIS8)
    assert inp.was is not None and inp.own is not None and inp.was.shape == (4, 60, 8)
    assert sorted(inp.history_labels) == ["1" * 60, "2" + "1" * 59]
    target = [inp.history_labels[h] if h >= 0 else None
              for h in inp.history].index("2" + "1" * 59)
    assert inp.labels[0][inp.was[target, 0, 0]] == "9"  # its older value, in version 1 only
    assert (inp.was[target, 1:] == -1).all()
    current = inp.history >= 0
    assert (inp.own[current] >= 0).all() and (inp.own[~current] == -1).all()
    assert inp.labels[0][inp.own[target, 0, 0]] == "9"
    assert (inp.labels[0][inp.own[target, 1:, 0]] == "1").all()


QIS3 = ["a", "b", "c"]


def _random_line(execute: Callable[[str], list[tuple]], seed: int) -> tuple[list[str], list[str]]:
    """A random line over QIS3 loaded through ``execute``: 1 to 5 stored versions of up to 14
    records (each version holds a random subset: deletions, returns), true values changed
    between versions (corrections, reverts), cells suppressed at random per version or kept
    from the previous version, other rows of another line; current records kept, changed and
    new. Returns the release ids (oldest first) and a random subset at other levels."""
    import random

    rng = random.Random(seed)
    for table in ("lp_key", "lp_store", "lp_gen"):
        execute(f"drop table if exists {table}")
    execute("create table lp_key as select cast('secret' as varchar) as key_value")
    cols = ", ".join(f"{q} varchar, {q}__generalized varchar" for q in QIS3)
    execute("create table lp_store (release_name varchar, release_id varchar,"
            f" release_version bigint, record_key varchar, {cols})")
    n, versions = rng.randint(3, 14), rng.randint(1, 5)
    true = {r: [rng.choice("xyz") for _ in QIS3] for r in range(1, n + 1)}
    cells_before: dict[int, list[str | None]] = {}
    ids = [f"r{v}" for v in range(1, versions + 1)]
    rows = []
    for v, rid in enumerate(ids, start=1):
        for r in true:
            if rng.random() < 0.15:
                true[r][rng.randrange(len(QIS3))] = rng.choice("xyz")
        held = [r for r in true if rng.random() < 0.8] or [1]
        for r in held:
            if r in cells_before and rng.random() < 0.6:  # a refresh keeps the cells
                cells = [None if c is None else t for c, t in zip(cells_before[r], true[r],
                                                                   strict=True)]
            else:
                cells = [None if rng.random() < 0.3 else t for t in true[r]]
            cells_before[r] = cells
            values = ", ".join(f"{_sql(c)}, {_sql(None if c is not None else t)}"
                               for c, t in zip(cells, true[r], strict=True))
            rows.append(f"('line', '{rid}', {v}, md5('{KEY}|{r}'), {values})")
            if rng.random() < 0.05:  # another line's row of the record: never read
                rows.append(f"('other', 'rx', 1, md5('{KEY}|{r}'), {values})")
    execute("insert into lp_store values " + ", ".join(rows))
    execute("create table lp_gen (rid integer, " + ", ".join(f"{q} varchar" for q in QIS3) + ")")
    current = [r for r in true if rng.random() < 0.85] + list(range(n + 1, n + rng.randint(1, 4)))
    gen = []
    for r in current:
        values = list(true.get(r) or [rng.choice("xyz") for _ in QIS3])
        if r in true and rng.random() < 0.15:
            values[rng.randrange(len(QIS3))] = rng.choice("xyz")
        gen.append("(" + ", ".join([str(r), *(_sql(x) for x in values)]) + ")")
    execute("insert into lp_gen values " + ", ".join(gen))
    return ids, [i for i in ids if rng.random() < 0.3]


KEYS3 = [*QIS3, *(f"{q}{s}" for s in ("__earlier", "__published", "__revealed") for q in QIS3),
         "deid_history"]


def _pairs_both_forms(execute: Callable[[str], list[tuple]], ids: list[str],
                      other: list[str], split: bool = True) -> dict[bool, Any]:
    """Per form (False wide, True long): the pairs rows (KEYS3 and n) as a Counter, the detail
    as the wide form's columns (the long form's rows placed at their releases), and what the
    refresh reads (read_pairs), decoded to labels."""
    import pandas as pd

    from dbt_deid.living.pairs import DETAIL, detail_row_columns, read_pairs

    wide_names = [f"{q}__{w}{i}_{e}" for i in range(1, len(ids) + 1) for q in QIS3
                  for w in ("was", "own") for e in ("min", "max")]
    out: dict[bool, Any] = {}
    for long in (False, True):
        sql = _render_line(QIS3, ids, long, other, split=split)
        execute("drop table if exists lp_pairs")
        execute(f"create table lp_pairs as {sql}")
        got = [d[0] for d in execute("select column_name from information_schema.columns where"
                                     " table_name = 'lp_pairs' order by ordinal_position")]
        records = [dict(zip(got, r, strict=True)) for r in execute("select * from lp_pairs")]
        if long:
            assert not any(c in got for c in wide_names)
            pairs = [r for r in records if r[DETAIL] is None]
            by_key: dict[tuple, dict[str, Any]] = {}
            for r in records:
                if r[DETAIL] is None:
                    continue
                assert r["n"] == 0
                d = by_key.setdefault(tuple(r[c] for c in KEYS3), {})
                for i, c in enumerate(r[DETAIL], start=1):
                    if c == "1":
                        for name in detail_row_columns(QIS3):
                            q, rest = name.split("__", 1)
                            w, e = rest.split("_")
                            assert f"{q}__{w}{i}_{e}" not in d  # one detail row per release
                            d[f"{q}__{w}{i}_{e}"] = r[name]
            detail = Counter((*(r[c] for c in KEYS3),
                              *(by_key.get(tuple(r[c] for c in KEYS3), {}).get(c)
                                for c in wide_names)) for r in pairs)
        else:
            assert DETAIL not in got
            pairs = records
            detail = Counter(tuple(r[c] for c in [*KEYS3, *wide_names]) for r in records)
        rows = Counter({tuple(r[c] for c in KEYS3): r["n"] for r in pairs})
        assert len(rows) == len(pairs)
        frame = pd.DataFrame(records, columns=got).astype(object)
        inp = read_pairs(frame.where(frame.notna(), None), QIS3)

        def decode(codes: Any, j: int, labels: Any = inp.labels) -> list:
            return [None if c == -1 else "CONFLICT" if c == -2 else labels[j][c]
                    if c < len(labels[j]) else "outside" for c in codes]

        read = [inp.counts.tolist(), inp.status.tolist(),
                [inp.history_labels[h] if h >= 0 else None for h in inp.history],
                *(decode(getattr(inp, part)[:, j], j) for part in
                  ("current", "earlier", "published", "revealed") for j in range(3))]
        if inp.was is not None:
            read += [decode(getattr(inp, part)[:, i, j], j) for part in ("was", "own")
                     for i in range(inp.was.shape[1]) for j in range(3)]
        out[long] = (rows, detail, read)
    return out


@pytest.mark.parametrize("seed", range(40))
def test_the_long_form_is_the_wide_form_on_random_lines(
        execute: Callable[[str], list[tuple]], seed: int) -> None:
    """Session 16: the two forms of the pairs (forced) give the same pairs rows and counts,
    the same per-release detail (the long form's detail rows placed at their releases) and the
    same refresh input (read_pairs: pairs, counts, statuses, histories, per-release detail),
    on random lines (deletions, returns, corrections and reverts, cells kept or suppressed
    anew, releases at other levels, another line's rows); with and without
    refresh_states_split on odd seeds."""
    ids, other = _random_line(execute, seed)
    both = _pairs_both_forms(execute, ids, other)
    assert both[True] == both[False]
    if seed % 2:
        assert _pairs_both_forms(execute, ids, other, split=False) == both


@pytest.mark.parametrize("seed", range(12))
def test_a_store_row_held_twice_changes_no_pair(
        execute: Callable[[str], list[tuple]], seed: int) -> None:
    """Review 15, M1 for the pairs: a (record, release) row stored twice (the store appended
    to itself, as a backup restored with insert; or one row twice) is not two releases. Both
    forms read each release once (maxima, minima, grouped by release), so the pairs, their
    detail and the refresh input are those of the clean store (store_integrity also refuses
    such a store before any build: tests/unit/test_store_integrity_sql.py)."""
    ids, other = _random_line(execute, seed)
    clean = _pairs_both_forms(execute, ids, other)
    execute("create table lp_clean as select * from lp_store")
    if seed % 2:
        execute("insert into lp_store select * from lp_clean")  # the whole store twice
    else:
        execute("insert into lp_store select * from lp_clean where release_name = 'line'"
                " order by release_id, record_key limit 3")
    doubled = _pairs_both_forms(execute, ids, other)
    execute("drop table lp_clean")
    assert doubled == clean
