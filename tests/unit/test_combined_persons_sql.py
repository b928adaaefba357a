"""The combined view counted by person (review 19, F1).

Recipients keep every version and link a record's rows across versions, so a record is
consistent with a target only when every cell any version revealed of it is. The gate
combined_releases used to count each *state* of a record (its true values before and after a
correction) as a record of its own: an unchanged record hidden in version 1 by a record that
was corrected in version 2 kept the corrected record's old state as a consistent record,
although the same person's version-2 row contradicts the target. combined_persons_sql counts
each record once with the union of its cells (two different values revealed: a cell matching
nothing), and the exact check's ``target_column`` keeps the changed records as released
records only (they are the linked check's targets).

The macros are rendered with Jinja (tests/macro_render.py) and run on DuckDB; the counts are
compared with a brute-force count by person over random lines.
"""

from __future__ import annotations

import random
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import duckdb

from tests.macro_render import macro_caller

ROOT = Path(__file__).resolve().parents[2]
MARKER = "dbt_deid: two values revealed"


def _call() -> Any:
    files = [*sorted((ROOT / "macros" / "risk").glob("*.sql")),
             ROOT / "macros" / "gates" / "combined_persons_sql.sql"]

    def context(call):
        return {
            "dbt_deid": SimpleNamespace(
                own=lambda m: m, ident=lambda n: f'"{n}"', can_inspect=lambda r: True,
                literal=lambda v: "'" + str(v).replace("'", "''") + "'",
                null_safe_equal_sql=call("null_safe_equal_sql"), null_masks=call("null_masks"),
                exact_consistent_sql=lambda *a, **kw: call("default__exact_consistent_sql")(
                    *a, **kw)),
            "dbt": SimpleNamespace(type_string=lambda: "varchar", type_bigint=lambda: "bigint"),
            "adapter": SimpleNamespace(dispatch=lambda name, pkg: call("default__" + name)),
            "run_query": None,
            "exceptions": SimpleNamespace(raise_compiler_error=lambda m: (_ for _ in ()).throw(
                RuntimeError(m))),
        }
    return macro_caller(files, context)


def _summary(con: Any, relation: str, qis: list[str], k: int, target: str | None) -> tuple:
    call = _call()
    con_rows = [tuple(r) for r in con.execute(
        f"select distinct {', '.join(f'{q} is null' for q in qis)} from {relation}").fetchall()]
    masks = [[1 if x else 0 for x in r] for r in con_rows]
    sql = str(call("default__exact_consistent_sql")(relation, qis, None, None, 64, masks, False,
                                                    target))
    return con.execute(f"select min(consistent), coalesce(sum(case when consistent < {k} then"
                       f" n_true else 0 end), 0) from ({sql}) as x").fetchone()


def _combined(con: Any, rows: list[tuple]) -> None:
    """rows: (record_key, q0 cell, q0 true, q1 cell, q1 true) per state."""
    con.execute("create or replace table combined (record_key varchar, q0 varchar,"
                " q0__generalized varchar, q1 varchar, q1__generalized varchar)")
    con.executemany("insert into combined values (?, ?, ?, ?, ?)", rows)
    con.execute("create or replace table combined as select *, case when count(*) over"
                " (partition by record_key) > 1 then 1 else 0 end as deid_changed_any"
                " from combined")
    sql = str(_call()("default__combined_persons_sql")("combined", ["q0", "q1"], MARKER))
    con.execute(f"create or replace table persons as {sql}")


def test_a_record_corrected_in_version_2_no_longer_hides_an_unchanged_one() -> None:
    """The reviewer's case (k = 3): A, B, C published (NULL, NULL) in version 1; A's q0
    corrected b -> a and A shown (a, a) in version 2. Counted by state, B's true (b, c) is
    consistent with A's old state, B and C: 3. By person, A's version-2 row contradicts (b, c):
    2 < k. On the old gate (the states as records): (3, 0), nothing refused."""
    con = duckdb.connect()
    _combined(con, [("A", None, "b", None, "a"), ("A", "a", "a", "a", "a"),
                    ("B", None, "b", None, "c"), ("C", None, "b", None, "c"),
                    ("D", "a", "a", "a", "a"), ("E", "a", "a", "a", "a"),
                    ("F", "a", "a", "a", "a")])
    assert _summary(con, "combined", ["q0", "q1"], 3, None) == (3, 0)  # the states' count
    assert _summary(con, "persons", ["q0", "q1"], 3, "deid_target") == (2, 2)
    assert con.execute("select count(*), sum(1 - deid_target), sum(deid_conflicts)"
                       " from persons").fetchone() == (6, 1, 0)


def test_two_values_revealed_match_no_record() -> None:
    """A revealed q0 = b in version 1 and q0 = a in version 2 (a correction shown both times):
    its one row holds the marker on q0, consistent with no target there; it still counts on
    the combinations without q0."""
    con = duckdb.connect()
    _combined(con, [("A", "b", "b", None, "c"), ("A", "a", "a", None, "c"),
                    ("B", "b", "b", "c", "c"), ("C", "b", "b", "c", "c"),
                    ("D", "a", "a", "c", "c"), ("E", "a", "a", "c", "c")])
    row = con.execute("select q0, q1, deid_target, deid_conflicts from persons"
                      " where deid_target = 0").fetchall()
    assert row == [(MARKER, None, 0, 1)]
    assert _summary(con, "persons", ["q0", "q1"], 3, "deid_target") == (2, 4)
    assert _summary(con, "persons", ["q1"], 5, "deid_target") == (5, 0)


def _by_person(states: list[tuple], k: int) -> tuple:
    """Brute force: targets are the records of one state; a record is consistent with a target
    when each of its states' cells is NULL or the target's true value."""
    keys: dict[str, list[tuple]] = {}
    for s in states:
        keys.setdefault(s[0], []).append(s)
    targets = [v[0] for v in keys.values() if len(v) == 1]
    counts = []
    for t in targets:
        truth = (t[2], t[4])
        n = sum(1 for v in keys.values()
                if all(all(c is None or (x is not None and c == x)
                           for c, x in zip((s[1], s[3]), truth, strict=True)) for s in v))
        counts.append(n)
    return (min(counts) if counts else None, sum(1 for n in counts if n < k))


def test_random_lines_match_a_count_by_person() -> None:
    rng = random.Random(19)
    con = duckdb.connect()
    for _ in range(40):
        states = []
        for i in range(rng.randint(5, 40)):
            truth = [rng.choice("ab") for _ in range(2)]
            for _state in range(1 if rng.random() < 0.8 else 2):
                cells = [None if rng.random() < 0.4 else t for t in truth]
                states.append((f"r{i}", cells[0], truth[0], cells[1], truth[1]))
                truth = [rng.choice("ab") for _ in range(2)]
        _combined(con, states)
        minimum, below = _summary(con, "persons", ["q0", "q1"], 3, "deid_target")
        assert (minimum, below) == _by_person(states, 3), states
