"""``python -m dbt_deid history``: the release history (the manifests the publish
materialization appends to ``deid_release_history``).

    python -m dbt_deid history --database FILE [--release NAME]   # one line per release attempt
    python -m dbt_deid history show ID --database FILE            # one release's manifest
    python -m dbt_deid history line --database FILE [--release NAME]  # a line version by version
    python -m dbt_deid history --project-dir DIR [--profiles-dir D] [--target T]  # any engine

``ID`` is a release id (or a unique prefix of one) from the list. Read-only; the history holds
figures, hashes and settings, never a quasi-identifier value.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pandas as pd

from dbt_deid.errors import DataError
from dbt_deid.sql_names import quote_relation

#: The history table, in the target schema next to the published table.
HISTORY = "deid_release_history"
#: Columns holding JSON text, shown parsed by ``history show``.
JSON_COLUMNS = ("settings_json", "achieved_json", "information_loss_json", "gates_json",
                "lineage_json", "released_levels_json", "line_json")


def read_history(database: str | Path, schema: str = "main",
                 release: str | None = None) -> pd.DataFrame:
    """The history rows of ``database`` (a DuckDB file) in the order they were recorded,
    optionally of one release name."""
    import duckdb

    path = Path(database)
    if not path.exists():
        raise FileNotFoundError(f"database {str(path)!r} does not exist; run the release first")
    with duckdb.connect(str(path), read_only=True) as con:
        found = con.execute(
            "select count(*) from information_schema.tables where table_schema = ?"
            " and table_name = ?", [schema, HISTORY]).fetchone()[0]
        if not found:
            raise DataError(f"table {schema}.{HISTORY} is missing from {path}: no release has"
                            " been attempted in this schema (--schema)")
        sql = f"select * from {quote_relation(schema, HISTORY)}"
        params: list[Any] = []
        if release is not None:
            sql += " where release_name = ?"
            params.append(release)
        frame = con.execute(sql + " order by recorded_at, invocation_id, status", params).df()
    return frame.reset_index(drop=True)


def render_list(history: pd.DataFrame) -> str:
    """One line per release attempt: id, kind (discharge, claims or text; empty for rows
    recorded before the column existed), name, version, status, time, rows, records shared
    with earlier releases of the name (gate combined_releases), fingerprints."""
    if history.empty:
        return "no release recorded"
    cols = ["release_id", "release_kind", "release_name", "release_version", "status",
            "recorded_at",
            "published_rows", "records_shared", "settings_md5", "input_hash", "published_hash",
            "gates_failed"]
    shown = history[[c for c in cols if c in history.columns]].copy()
    for c in ("settings_md5", "input_hash", "published_hash"):
        if c in shown.columns:
            shown[c] = shown[c].map(lambda v: v[:12] if isinstance(v, str) else "-")
    return shown.astype(object).where(shown.notna(), "-").to_string(index=False)


def _whole(value: Any) -> int | None:
    """A count or version as a whole number (pandas reads an integer column holding NULLs,
    a refused attempt's, as floats: 1.0), None for NULL."""
    return None if value is None or pd.isna(value) else int(value)


def render_line(history: pd.DataFrame) -> str:
    """A release line version by version (issue 32): per published version, the version it
    extends, records added, returned, deleted, changed and kept, kept rows and cells newly
    suppressed, the combined view's smallest class and consistent set per combination, and
    the restart reason when the line was started over; refused attempts as one line each. A
    claims or text version (no per-record store) says whether it is identical to the version it
    extends or only deletes rows from it (the gate <table>_line)."""
    if history.empty:
        return "no release recorded"
    lines = []
    for _, row in history.iterrows():
        raw = row.get("line_json")
        line = json.loads(raw) if isinstance(raw, str) and raw else {}
        head = (f"{row.get('release_name')} version {_whole(row.get('release_version'))}"
                if row.get("status") == "published"
                else f"{row.get('release_name')} {row.get('status')} ({row.get('gates_failed')})")
        rows = _whole(row.get("published_rows"))
        shown = "nothing published" if rows is None else f"rows {rows}"
        lines.append(f"{head}  {row.get('recorded_at')}  {shown}")
        if line.get("restart_reason"):
            lines.append(f"  restart: {line['restart_reason']}")
        if row.get("status") != "published":
            continue
        if line.get("extends_version") is None:
            lines.append("  first version of the line")
        elif line.get("kind") in ("claims", "text"):
            # a claims or text line (macros/gates/kind_line.sql): identical, or rows deleted only
            other = line.get("extends_release")
            of = f" of {other}" if other and other != row.get("release_name") else ""
            how = ("identical" if line.get("identical_to_extended")
                   else "rows deleted only (every row a row of it)")
            lines.append(f"  {line.get('table')}: extends version {line['extends_version']}{of}:"
                         f" {how}")
        else:
            # the line is the source's releases whatever their name (issue 32, item 2)
            other = line.get("extends_release")
            of = f" of {other}" if other and other != row.get("release_name") else ""
            lines.append(
                f"  extends version {line['extends_version']}{of}: {line.get('records_added', 0)}"
                f" added, {line.get('records_returned', 0)} returned,"
                f" {line.get('records_deleted', 0)} deleted, {line.get('records_changed', 0)}"
                f" changed, {line.get('records_kept', 0)} kept;"
                f" {line.get('kept_cells_newly_suppressed', 0)} cell(s) newly suppressed in"
                f" {line.get('kept_rows_newly_suppressed', 0)} earlier record(s)")
        for c in line.get("combined") or []:
            lines.append(f"  combined view {c['combination']}: smallest class"
                         f" {c.get('smallest_class')}, smallest consistent set"
                         f" {c.get('min_consistent')}")
    return "\n".join(lines)


def find_release(history: pd.DataFrame, release_id: str) -> pd.Series:
    """The row whose release id is (or starts with) ``release_id``; one clear error otherwise."""
    if "release_id" not in history.columns:
        raise DataError(f"{HISTORY} has no release_id column: recorded by an older package;"
                        " publish once with this version")
    ids = history["release_id"].fillna("")
    hits = history[ids.str.startswith(release_id)]
    if len(hits) == 0:
        raise DataError(f"release id {release_id!r} is not in {HISTORY} (see `history`)")
    if len(hits) > 1:
        raise DataError(f"release id {release_id!r} matches {len(hits)} releases; give more of"
                        " it")
    return hits.iloc[0]


def render_release(row: pd.Series) -> str:
    """A release's manifest: scalar fields, then the JSON fields pretty-printed."""
    lines = []
    for name, value in row.items():
        if name in JSON_COLUMNS:
            continue
        lines.append(f"{name}: {'-' if pd.isna(value) else value}")
    # the JSON fields below hold exactly what was recorded
    for name in JSON_COLUMNS:
        value = row.get(name)
        if value is None or (not isinstance(value, str) and pd.isna(value)):
            continue
        lines.append(f"{name.removesuffix('_json')}:")
        lines.append(json.dumps(json.loads(value), indent=2, sort_keys=True))
    return "\n".join(lines)


def _history(args: argparse.Namespace) -> pd.DataFrame:
    """From the DuckDB file (--database) or through the project's dbt adapter (--project-dir)."""
    if (args.database is None) == (args.project_dir is None):
        raise DataError("history reads --database FILE (a DuckDB file) or --project-dir DIR"
                        " (any engine, through the project's dbt profile): give one of them")
    if args.database is not None:
        return read_history(args.database, args.schema or "main", args.release)
    from dbt_deid.dbt_side.engine.history_reader import read_history_dbt

    frame = read_history_dbt(args.project_dir, args.profiles_dir, args.target, args.schema)
    if args.release is not None and "release_name" in frame.columns:
        frame = frame[frame["release_name"] == args.release].reset_index(drop=True)
    return frame


def _run(args: argparse.Namespace) -> int:
    history = _history(args)
    if args.action == "show":
        if not args.release_id:
            raise DataError("history show needs a release id (see `history`)")
        print(render_release(find_release(history, args.release_id)))
    elif args.action == "line":
        print(render_line(history))
    else:
        print(render_list(history))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("history", help="list the release history, or show one release's manifest",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("action", nargs="?", choices=["list", "show", "line"], default="list")
    p.add_argument("release_id", nargs="?", help="with show: the release id (or a prefix)")
    p.add_argument("--database", help="the DuckDB file of the release")
    p.add_argument("--project-dir", help="or: the dbt project, read through its profile's"
                   " adapter (any engine)")
    p.add_argument("--profiles-dir", help="with --project-dir: where profiles.yml is")
    p.add_argument("--target", help="with --project-dir: the profile's target")
    p.add_argument("--schema", default=None, help="the published schema (default main for"
                   " --database, the target's schema for --project-dir)")
    p.add_argument("--release", help="only releases of this name")
    p.set_defaults(func=_run)
