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
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from tests.macro_render import macro_caller

ROOT = Path(__file__).resolve().parents[1]
FILES = [ROOT / "macros" / "gates" / "combined_levels_view_sql.sql",
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


def _call(execute: Execute, store_columns: list[str]) -> Callable[[str], Callable[..., Any]]:
    def context(call: Callable[[str], Callable[..., Any]]) -> dict[str, Any]:
        return {
            "dbt_deid": SimpleNamespace(
                own=lambda m: m, ident=_ident, literal=_literal,
                keyed_record_hash_sql=lambda e, k: (f"md5({k}.key_value || '|' ||"
                                                    f" cast({e} as varchar))"),
                line_rows_condition=lambda cfg, alias="": "1 = 1"),
            "dbt": SimpleNamespace(type_string=lambda: "varchar", type_bigint=lambda: "bigint"),
            "adapter": SimpleNamespace(
                get_columns_in_relation=lambda rel: [SimpleNamespace(name=n)
                                                     for n in store_columns],
                dispatch=lambda name, package: call("default__" + name)),
            "run_query": lambda sql: SimpleNamespace(rows=execute(sql)),
        }
    return macro_caller(FILES, context)


def _insert(execute: Execute, table: str, rows: Iterable[Sequence[object]]) -> None:
    for row in rows:
        execute(f"insert into {table} values ("
                + ", ".join("null" if v is None else (str(v) if isinstance(v, int)
                                                      else _literal(v)) for v in row) + ")")


def load(execute: Execute, columns: Sequence[str],
         releases: Sequence[tuple[Mapping[str, int], Records]],
         hierarchy: Iterable[tuple[str, object, int, object]]) -> None:
    """Tables ``truth`` (the last release), ``store`` (the others, release ids r0, r1, ...),
    ``deid_key`` and ``hierarchy`` (qi_name, original_value, level, generalized_value)."""
    qcols = [f"{_ident(q)} varchar, {_ident(q + '__generalized')} varchar" for q in columns]
    for table in ("truth", "store", "deid_key", "hierarchy"):
        execute(f"drop table if exists {table}")
    execute("create table truth (rid varchar, " + ", ".join(qcols) + ")")
    execute("create table store (record_key varchar, release_id varchar, "
            + ", ".join(qcols) + ")")
    execute("create table deid_key (key_value varchar)")
    execute("create table hierarchy (qi_name varchar, original_value varchar, level integer,"
            " generalized_value varchar)")
    _insert(execute, "deid_key", [(KEY,)])
    _insert(execute, "hierarchy", hierarchy)

    def cells(published: Sequence[object], true: Sequence[object]) -> list[object]:
        return [v for pair in zip(published, true, strict=True) for v in pair]

    *earlier, (_levels, candidate) = releases
    _insert(execute, "truth", [[str(rid), *cells(p, t)] for rid, (p, t) in candidate.items()])
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
