"""The mixed-level combined view and its exact check (macros/gates/combined_levels_view_sql.sql,
macros/risk/exact_levels_summary_sql.sql) rendered with Jinja outside dbt and run on a plain
connection (DuckDB in memory, or PostgreSQL), for the unit tests that hold them to the
reference of tests/combined_view_check.py (issue 32, item 2).

The earlier releases go into a store table (``deid_release_records``' columns: record key,
release id, per QI the published cell and the true value), the last release into the
candidate table (``deid_release_gate``'s: record id, cell, true value); the key is a fixed
string (the record key is md5(key || '|' || id), as keyed_record_hash_sql's default form).
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from tests.combined_view_check import level_map
from tests.macro_render import macro_caller

ROOT = Path(__file__).resolve().parents[1]
FILES = [ROOT / "macros" / "gates" / "combined_levels_view_sql.sql",
         ROOT / "macros" / "gates" / "level_map_sql.sql",
         ROOT / "macros" / "risk" / "exact_levels_summary_sql.sql"]
KEY = "k" * 64
MISSING = "<missing>"

#: record id -> (published cells, true values); None = suppressed.
Records = Mapping[object, tuple[Sequence[object], Sequence[object]]]
Execute = Callable[[str], list[tuple]]


def _literal(value: object) -> str:
    return "'" + str(value).replace("'", "''") + "'"


def _ident(name: str) -> str:
    return '"' + name + '"'


def _caller(execute: Execute, files: Sequence[Path],
            columns_of: Callable[[Any], list[str]]) -> Callable[[str], Callable[..., Any]]:
    """``files``' macros rendered with the package's default forms on ``execute``;
    ``columns_of(relation)`` answers adapter.get_columns_in_relation (names)."""
    def context(call: Callable[[str], Callable[..., Any]]) -> dict[str, Any]:
        return {
            "dbt_deid": SimpleNamespace(
                own=lambda m: m, ident=_ident, literal=_literal,
                keyed_record_hash_sql=lambda e, k: (f"md5({k}.key_value || '|' ||"
                                                    f" cast({e} as varchar))"),
                line_rows_condition=lambda cfg, alias="": "1 = 1",
                level_map_sql=call("level_map_sql"),
                # each QI's original values in its own `<qi>__original` column
                original_value_sources=lambda cfg: {q: q for q in cfg["released_qis"]}),
            "dbt": SimpleNamespace(type_string=lambda: "varchar", type_bigint=lambda: "bigint"),
            "adapter": SimpleNamespace(
                get_columns_in_relation=lambda rel: [SimpleNamespace(name=n)
                                                     for n in columns_of(rel)],
                dispatch=lambda name, package: call("default__" + name)),
            "run_query": lambda sql: SimpleNamespace(rows=execute(sql)),
        }
    return macro_caller(list(files), context)


def _call(execute: Execute, store_columns: list[str]) -> Callable[[str], Callable[..., Any]]:
    return _caller(execute, FILES, lambda rel: store_columns)


def linked_caller(execute: Execute, files: Sequence[Path]) -> Callable[[str], Callable[..., Any]]:
    """The linked check's macros (``files``: linked_changes_sql.sql and level_map_sql.sql, or
    another revision's copies) rendered with the package's default forms; the store's columns
    are read from the connection. Shared by tests/unit/test_linked_changes_sql.py and
    bench/bench_linked_sql.py."""
    return _caller(execute, files, lambda rel: [
        r[0] for r in execute("select column_name from information_schema.columns"
                              f" where table_name = '{rel}'")])


def _insert(execute: Execute, table: str, rows: Iterable[Sequence[object]]) -> None:
    for row in rows:
        execute(f"insert into {table} values ("
                + ", ".join("null" if v is None else (str(v) if isinstance(v, int)
                                                      else _literal(v)) for v in row) + ")")


def load(execute: Execute, columns: Sequence[str],
         releases: Sequence[tuple[Mapping[str, int], Records]],
         hierarchy: Iterable[tuple[str, object, int, object]]) -> None:
    """Tables ``truth`` (the last release; with its records' original values,
    ``<qi>__original``, when it is a :class:`Held` that carries them, as deid_suppressed does),
    ``store`` (the others, release ids r0, r1, ...), ``deid_key`` and ``hierarchy`` (qi_name,
    original_value, level, generalized_value)."""
    qcols = [f"{_ident(q)} varchar, {_ident(q + '__generalized')} varchar" for q in columns]
    *earlier, (_levels, candidate) = releases
    raw = getattr(candidate, "originals", None)
    for table in ("truth", "store", "deid_key", "hierarchy"):
        execute(f"drop table if exists {table}")
    ocols = [f"{_ident(q + '__original')} varchar" for q in columns] if raw is not None else []
    execute("create table truth (rid varchar, " + ", ".join(qcols + ocols) + ")")
    execute("create table store (record_key varchar, release_id varchar, "
            + ", ".join(qcols) + ")")
    execute("create table deid_key (key_value varchar)")
    execute("create table hierarchy (qi_name varchar, original_value varchar, level integer,"
            " generalized_value varchar)")
    _insert(execute, "deid_key", [(KEY,)])
    _insert(execute, "hierarchy", hierarchy)

    def cells(published: Sequence[object], true: Sequence[object]) -> list[object]:
        return [v for pair in zip(published, true, strict=True) for v in pair]

    _insert(execute, "truth", [[str(rid), *cells(p, t), *(raw[rid] if raw is not None else ())]
                               for rid, (p, t) in candidate.items()])
    for i, (_lv, records) in enumerate(earlier):
        _insert(execute, "store", [
            [hashlib.md5(f"{KEY}|{rid}".encode()).hexdigest(), f"r{i}", *cells(p, t)]
            for rid, (p, t) in records.items()])


def view_and_figures(execute: Execute, columns: Sequence[str],
                     releases: Sequence[tuple[Mapping[str, int], Records]],
                     combinations: Sequence[Sequence[str]], k: int, *,
                     listed: Iterable[int] | None = None
                     ) -> tuple[list[dict], dict[str, tuple[int, int]]]:
    """Build the combined view (table ``combined``) of the loaded tables (:func:`load`) with
    the package's SQL and run its exact check: (the view's rows as dicts, per combination
    (smallest consistent set, records below k)). ``listed``: the earlier releases (indexes)
    the gate passes with their levels (default: all)."""
    *earlier, (current, _c) = releases
    listed = range(len(earlier)) if listed is None else listed
    release_levels = {f"r{i}": dict(earlier[i][0]) for i in listed}
    levels = {q: sorted({lv[q] for lv, _r in releases}) for q in columns}
    store_columns = ["record_key", "release_id"] + [
        c for q in columns for c in (q.lower(), (q + "__generalized").lower())]
    call = _call(execute, store_columns)
    cfg = {"released_qis": list(columns), "missing_label": MISSING, "record_id": "rid"}
    sql = call("default__combined_levels_view_sql")(cfg, "truth", "deid_key", "store",
                                                     "hierarchy", release_levels,
                                                     dict(current), levels)
    execute("drop table if exists combined")
    execute(f"create table combined as {sql}")
    names = [r[0] for r in execute("select column_name from information_schema.columns where"
                                   " table_name = 'combined' order by ordinal_position")]
    rows = [dict(zip(names, r, strict=True)) for r in execute("select * from combined")]
    summary = call("default__exact_levels_summary_sql")("combined", [list(b) for b in
                                                                     combinations], k, levels)
    figures = {r[0]: (None if r[2] is None else int(r[2]), int(r[3]))
               for r in execute(str(summary))}
    return rows, figures


# The test data: two QIs (diag at three levels), and releases of them.

COLUMNS = ["age", "diag"]
#: diag: code (level 0) -> block (1) -> chapter (2); age: years (0) -> decade (1)
CODES = {"a1": ("A", "AB"), "a2": ("A", "AB"), "b1": ("B", "AB"), "b2": ("B", "AB"),
         "c1": ("C", "C*"), "c2": ("C", "C*")}
AGES = {"21": "20-29", "25": "20-29", "33": "30-39", "37": "30-39"}
HIERARCHY = ([("diag", c, 0, c) for c in CODES] + [("diag", c, 1, v[0]) for c, v in CODES.items()]
             + [("diag", c, 2, v[1]) for c, v in CODES.items()]
             + [("age", a, 0, a) for a in AGES] + [("age", a, 1, d) for a, d in AGES.items()])
UP = level_map(HIERARCHY, MISSING)


def _at(q: str, value: str, level: int) -> str:
    """An original value at ``level`` of its hierarchy."""
    if value == MISSING or level == 0:
        return value
    return AGES[value] if q == "age" else CODES[value][level - 1]


class Held(dict):
    """A release's records (record id -> (published cells, true values)) that also carries
    their original values (``originals``: record id -> one per QI), as the checked release
    (deid_suppressed's ``<qi>__original``) does for the candidate."""

    originals: dict[int, tuple[str, ...]]


def release(levels: dict[str, int], truth: dict[int, tuple[str, str]],
            suppressed: set[tuple[int, str]] = frozenset()) -> tuple[dict, Held]:
    """One release at ``levels`` of the records ``truth`` (record id -> original values),
    with the cells ``suppressed`` ((record id, QI)) suppressed."""
    records = Held()
    records.originals = {rid: tuple(values) for rid, values in truth.items()}
    for rid, values in truth.items():
        true = tuple(_at(q, v, levels[q]) for q, v in zip(COLUMNS, values, strict=True))
        cells = tuple(None if (rid, q) in suppressed else t
                      for q, t in zip(COLUMNS, true, strict=True))
        records[rid] = (cells, true)
    return levels, records


def random_releases(rng: random.Random, n_levels: int) -> list[tuple[dict, Held]]:
    """Three to four releases of one source: records drawn from few values (small classes and
    large ones), each release at a random level per QI, holding a random share of the records
    (some in one release only), suppressing a share of cells; 15% of the records get a new code
    (a corrected value) from the second release on, some inside one block, some not."""
    n = rng.randint(8, 40)
    truth = {r: (rng.choice([*AGES, MISSING]), rng.choice([*CODES, MISSING])) for r in range(n)}
    changed = {r: (truth[r][0], rng.choice(list(CODES))) for r in truth if rng.random() < 0.15}
    out = []
    for i in range(rng.randint(3, 4)):
        levels = {"age": rng.randint(0, 1), "diag": rng.randint(0, n_levels - 1)}
        held = {r: (changed.get(r, v) if i else v) for r, v in truth.items()
                if rng.random() < 0.8}
        p = rng.choice([0.0, 0.2, 0.5])
        suppressed = {(r, q) for r in held for q in COLUMNS if rng.random() < p}
        out.append(release(levels, held, suppressed))
    return out


def random_corrections(rng: random.Random, n_levels: int) -> list[tuple[dict, Held]]:
    """Three to four releases of one source, each at random levels, holding a random share of
    the records and suppressing a share of cells, where each release after the first corrects
    some records, most to another value of the same decade or block (a change seen only at
    the finer levels: review 12 final, L1), some to any value, some back to an earlier one."""
    n = rng.randint(8, 40)
    truth = {r: (rng.choice([*AGES, MISSING]), rng.choice([*CODES, MISSING])) for r in range(n)}
    first = dict(truth)

    def sibling(q: str, value: str) -> str:
        group = {a for a in AGES if _at(q, a, 1) == _at(q, value, 1)} if q == "age" else {
            c for c in CODES if CODES[c][0] == CODES.get(value, ("",))[0]}
        return rng.choice(sorted(group)) if value != MISSING else value

    out = []
    for i in range(rng.randint(3, 4)):
        if i:
            for r in truth:
                x = rng.random()
                if x < 0.15:
                    j = rng.randrange(2)
                    values = list(truth[r])
                    values[j] = sibling(COLUMNS[j], values[j])
                    truth[r] = (values[0], values[1])
                elif x < 0.2:
                    truth[r] = (rng.choice([*AGES, MISSING]), rng.choice([*CODES, MISSING]))
                elif x < 0.23:
                    truth[r] = first[r]
        levels = {"age": rng.randint(0, 1), "diag": rng.randint(0, n_levels - 1)}
        held = {r: v for r, v in truth.items() if rng.random() < 0.85}
        p = rng.choice([0.0, 0.2, 0.5])
        suppressed = {(r, q) for r in held for q in COLUMNS if rng.random() < p}
        out.append(release(levels, held, suppressed))
    return out


def reference_rows(view: list[dict]) -> Counter:
    """The reference's view (mixed_level_view) as rows: per QI cell, level, true value at
    each level used; then the conflict flag."""
    out: Counter = Counter()
    for s in view:
        row = []
        for q in COLUMNS:
            cell = s["cells"][q]
            row += [None if cell is None else cell[1], None if cell is None else cell[0]]
            row += [s["true_at"][key] for key in sorted(k for k in s["true_at"] if k[0] == q)]
        out[(*row, int(s["conflict"]))] += 1
    return out


def sql_rows(rows: list[dict], releases: Sequence[tuple[Mapping[str, int], Records]]) -> Counter:
    """The SQL view's rows (:func:`view_and_figures`) in :func:`reference_rows`' form."""
    levels = {q: sorted({lv[q] for lv, _r in releases}) for q in COLUMNS}
    got: Counter = Counter()
    for r in rows:
        row = []
        for q in COLUMNS:
            row += [r[q], None if r[q + "__level"] is None else int(r[q + "__level"])]
            row += [r[f"{q}__at_{lv}"] for lv in levels[q]]
        got[(*row, int(r["deid_conflict"]))] += 1
    return got
