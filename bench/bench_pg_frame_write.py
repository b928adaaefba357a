"""Time the write of a Python model's frame to PostgreSQL, old form and new alternated in one
process, on the tables of a kept build, and check that both write the same table.

``python -m dbt_deid build`` computes the package's Python models outside dbt on PostgreSQL
(dbt_deid.dbt_side.engine.segmented) and writes each model's frame as a table through the
adapter's connection (``AdapterFrames.write``: a table ``<name>__dbt_deid_tmp`` created with the
frame's column types, filled by ``COPY ... FROM STDIN``, renamed over the old table, one
transaction). At 2.4 million records ``deid_suppression_map``'s write (937,085 rows, 31
columns) took 64 s of the node's 140 s in session 18's kept build (issue 37). This bench builds
that frame as the model does (its refs read by COPY as ``AdapterFrames.read`` reads them, then
the model's glue, :func:`dbt_deid.dbt_side.entry.deid_suppression_map`, with the node's
``deid_release_json`` from the build's manifest), then writes it with each form into a scratch
schema, each on a fresh connection in one transaction, old and new alternated (``--pairs``):

* old: the CSV built by :func:`postgres_copy_csv` (one Python string per row, joined, in an
  ``io.StringIO``) and sent with psycopg2's default 8 KiB chunks (main ec04311's write);
* new: :func:`postgres_copy_frame` (Arrow's CSV writer into bytes, 1 MiB chunks).

Each run prints the seconds building the CSV, the COPY's, the whole transaction's, this
process's peak resident set during the write (VmHWM, reset before each write), the load
average and the UTC time. Then: the two tables' column names and types
(information_schema, in order) and EXCEPT ALL both ways between them, and with ``--kept``
between the new table and the kept build's own table (what the build wrote).

Run against a kept build's server started on a copy of its data folder (see
bench_pg_statements.py)::

    PYTHONPATH=/work/<worktree>/src nice -n 10 .venv/bin/python bench/bench_pg_frame_write.py \\
        --host /tmp/mysock --port 54987 --manifest KEPT/postgres_2375331/target/manifest.json \\
        --schema bench_deid_work --kept --pairs 2
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import pandas as pd

from dbt_deid.dbt_side.engine.python_nodes import (
    _TYPES,
    POSTGRES_COPY_KINDS,
    column_kind,
    copy_csv_to_frame,
    postgres_copy_frame,
    rows_to_frame,
)

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.postgres_copy_reference
from tests.postgres_copy_reference import postgres_copy_csv  # noqa: E402

SCRATCH = "deid_bench_scratch"


def _connect(args: argparse.Namespace) -> Any:
    import psycopg2

    return psycopg2.connect(host=args.host, port=args.port, user=args.user, dbname=args.dbname)


def _peak_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _reset_peak() -> None:
    # Linux: writing 5 resets the peak resident set (VmHWM) to the current one
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")


def read_copy(con: Any, sql: str) -> pd.DataFrame:
    """The rows of ``sql`` as ``AdapterFrames.read`` gives them on PostgreSQL (COPY as CSV
    parsed by Arrow where every column's type allows, else the rows fetched)."""
    with con.cursor() as cur:
        cur.execute(f"select * from ({sql}) as deid_read__ limit 0")
        kinds = [POSTGRES_COPY_KINDS.get(d[1]) for d in cur.description]
        columns = [d[0] for d in cur.description]
        if any(k is None for k in kinds):
            cur.execute(sql)
            return rows_to_frame(columns, cur.fetchall())
        buffer = io.BytesIO()
        cur.copy_expert(f"copy ({sql}) to stdout with (format csv, encoding 'UTF8')", buffer)
    return copy_csv_to_frame(buffer.getvalue(), columns, kinds)


def model_frame(args: argparse.Namespace) -> tuple[pd.DataFrame, float]:
    """The frame of the Python model ``--node`` as the build computes it; its seconds."""
    from dbt_deid.dbt_side.entry import deid_suppression_map

    manifest = json.loads(args.manifest.read_text())
    node = manifest["nodes"][args.node]
    refs = [manifest["nodes"][u] for u in node["depends_on"]["nodes"]]
    by_name = {r["name"].split("__")[-1]: r for r in refs}
    con = _connect(args)
    try:
        start = time.perf_counter()
        frames = {name: read_copy(con, f'select * from "{args.schema}".'
                                       f'"{r.get("alias") or r["name"]}"')
                  for name, r in by_name.items()}
        frame = deid_suppression_map(node["config"]["deid_release_json"],
                                     frames["deid_patterns"], frames.get("deid_hierarchy"))
        return frame, time.perf_counter() - start
    finally:
        con.close()


def write_old(cur: Any, relation: str, frame: pd.DataFrame, kinds: list[str]
              ) -> tuple[float, float]:
    """main ec04311's COPY of ``AdapterFrames._insert``: (seconds building the CSV, COPY's)."""
    start = time.perf_counter()
    data = postgres_copy_csv(frame, kinds)
    built = time.perf_counter()
    cur.copy_expert(f"copy {relation} from stdin with (format csv)", data)
    return built - start, time.perf_counter() - built


def run_form(args: argparse.Namespace, form: str, frame: pd.DataFrame) -> dict[str, float]:
    """``AdapterFrames.write``'s statements with ``form``'s COPY into SCRATCH.deid_<form>, on
    a fresh connection, one transaction; the seconds of its parts and the peak MiB."""
    frame = frame.reset_index(drop=True)
    frame.columns = [str(c) for c in frame.columns]
    kinds = [column_kind(frame[c]) for c in frame.columns]
    cols = ", ".join('"' + c.replace('"', '""') + f'" {_TYPES["default"][k]}'
                     for c, k in zip(frame.columns, kinds, strict=True))
    target, tmp = f"{SCRATCH}.deid_{form}", f"{SCRATCH}.deid_{form}__dbt_deid_tmp"
    con = _connect(args)
    try:
        _reset_peak()
        start = time.perf_counter()
        with con.cursor() as cur:
            cur.execute(f"drop table if exists {tmp}")
            cur.execute(f"create table {tmp} ({cols})")
            copy = write_old if form == "old" else postgres_copy_frame
            built, copied = copy(cur, tmp, frame, kinds)
            cur.execute(f"drop table if exists {target} cascade")
            cur.execute(f"alter table {tmp} rename to deid_{form}")
        con.commit()
        return {"csv": built, "copy": copied, "total": time.perf_counter() - start,
                "peak": _peak_mib()}
    finally:
        con.close()


def _columns(cur: Any, schema: str, table: str) -> list[tuple[str, str]]:
    cur.execute("select column_name, data_type from information_schema.columns where"
                " table_schema = %s and table_name = %s order by ordinal_position",
                (schema, table))
    return [(r[0], r[1]) for r in cur.fetchall()]


def compare(args: argparse.Namespace) -> None:
    """Column names and types of the two tables, EXCEPT ALL both ways; with ``--kept`` the
    new table against the kept build's table too."""
    con = _connect(args)
    try:
        with con.cursor() as cur:
            cur.execute("set work_mem = '512MB'")
            old, new = _columns(cur, SCRATCH, "deid_old"), _columns(cur, SCRATCH, "deid_new")
            print(f"columns and types: {'the same' if old == new else 'DIFFERENT'}"
                  f" ({len(new)} columns)")
            pairs = [(f"{SCRATCH}.deid_old", f"{SCRATCH}.deid_new")]
            if args.kept:
                kept = _columns(cur, args.schema, args.table)
                print(f"columns and types against the kept {args.schema}.{args.table}:"
                      f" {'the same' if kept == new else 'DIFFERENT'}")
                pairs.append((f'"{args.schema}"."{args.table}"', f"{SCRATCH}.deid_new"))
            for a, b in pairs:
                counts = []
                for x, y in ((a, b), (b, a)):
                    cur.execute(f"select count(*) from (select * from {x} except all"
                                f" select * from {y}) as d")
                    counts.append(int(cur.fetchone()[0]))
                cur.execute(f"select (select count(*) from {a}), (select count(*) from {b})")
                ra, rb = cur.fetchone()
                print(f"EXCEPT ALL {a} - {b}: {counts[0]}, {b} - {a}: {counts[1]}"
                      f" (rows {ra:,} / {rb:,})")
    finally:
        con.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--host", required=True, help="the server's socket directory or host")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--user", default="postgres")
    ap.add_argument("--dbname", default="postgres")
    ap.add_argument("--manifest", type=Path, required=True, help="the kept build's manifest.json")
    ap.add_argument("--node", default="model.dbt_deid.deid_suppression_map")
    ap.add_argument("--schema", default="bench_deid_work", help="the kept build's schema")
    ap.add_argument("--table", default="deid_suppression_map", help="the kept build's table")
    ap.add_argument("--kept", action="store_true", help="compare with the kept build's table")
    ap.add_argument("--pairs", type=int, default=2)
    args = ap.parse_args()
    frame, seconds = model_frame(args)
    print(f"{time.strftime('%H:%M:%S', time.gmtime())} UTC the model's frame: {len(frame):,}"
          f" rows, {frame.shape[1]} columns in {seconds:.2f} s (its refs read and the glue),"
          f" load {os.getloadavg()[0]:.1f}", flush=True)
    con = _connect(args)
    with con.cursor() as cur:
        cur.execute(f"create schema if not exists {SCRATCH}")
    con.commit()
    con.close()
    totals: dict[str, list[float]] = {"old": [], "new": []}
    try:
        for i in range(args.pairs):
            for form in (("old", "new") if i % 2 == 0 else ("new", "old")):
                load, utc = os.getloadavg()[0], time.strftime("%H:%M:%S", time.gmtime())
                t = run_form(args, form, frame)
                totals[form].append(t["total"])
                print(f"{utc} UTC pair {i + 1} {form}: {t['total']:.2f} s (CSV built"
                      f" {t['csv']:.2f} s, COPY {t['copy']:.2f} s), peak {t['peak']:.0f} MiB,"
                      f" load {load:.1f}", flush=True)
        compare(args)
        old, new = statistics.median(totals["old"]), statistics.median(totals["new"])
        print(f"median old {old:.2f} s, new {new:.2f} s, new/old {new / old:.2f}")
    finally:
        con = _connect(args)
        with con.cursor() as cur:
            cur.execute(f"drop schema if exists {SCRATCH} cascade")
        con.commit()
        con.close()


if __name__ == "__main__":
    main()
