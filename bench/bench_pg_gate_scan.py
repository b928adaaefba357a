"""Time the gate table's single scan (``deid_gate_results``' input_unchanged query:
postgres__gate_input_unchanged_sql) on a kept 2.4M PostgreSQL build in two forms, old and new
alternated in one process, with DuckDB's same scan timed in the same run for the ratio; check
that the new form's row is the old one's but for the fingerprints it changes, and that those
equal what the publish step compares them with.

Issue 37, session 20 (docs/performance.md, "Gate table and diagnostics forms, session 20").
The old form is the scan as the kept build ran it (read from ``<pg build>/logs/dbt.log``, with
its header: work_mem 512MB, JIT off). The new form is the same statement with the checked
release's fingerprint (the unnested row text 1) and the pattern proof's (text 3) hashed by
their records (postgres_record_hash_sql, macros/gates/checked_fingerprint.sql, rendered from
this checkout with tests/macro_render.py) instead of their row texts; the source's text
(text 2) is kept. Checks: every column but ``fingerprint`` and ``pattern_fingerprint`` equal;
the new ``fingerprint`` equals the checked release's alone (postgres__checked_fingerprint's
query over every column of deid_suppressed: the value a later publish compares the gate
table's checked_hash with) and the new ``pattern_fingerprint`` the weighted fingerprint of
deid_suppressed_patterns (exact_gate.sql's query: the pattern proof holds). That query (the
pattern proof's other side, old as logged and new) is timed after each scan.

Run against a copy of a kept build's data directory on a private socket (e.g.
``runuser -u postgres -- pg_ctl -D COPY -o "-c listen_addresses='' -c
unix_socket_directories='/tmp/mysock' -p 54987" start``)::

    PYTHONPATH=$PWD nice -n 10 .venv/bin/python bench/bench_pg_gate_scan.py \\
        --build /tmp/s19-all-big/postgres_2375331 --host /tmp/mysock --port 54987 \\
        --duckdb /tmp/s19-all-big/duckdb_2375331 --pairs 2

Prints one line per run (form, seconds, load average, UTC time), the checks and the medians.
DuckDB's scan (its form of the same query, from ``<duckdb build>/logs/dbt.log``) runs on the
kept ``bench.duckdb`` opened read-only, once before each PostgreSQL pair.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.macro_render import macro_caller  # noqa: E402 - after the path

_STAMP = re.compile(r"^\x1b\[0m(\d\d:\d\d:\d\d\.\d+) ")


def node_statements(log: Path, node: str) -> list[str]:
    """The statements the node ran (dbt's debug log), in order."""
    out: list[str] = []
    current: list[str] | None = None
    for line in log.read_text(errors="replace").splitlines():
        if _STAMP.match(line):
            if current is not None:
                out.append("\n".join(current))
            current = [line.split(": ", 2)[-1]] if f"On model.dbt_deid.{node}: " in line else None
        elif current is not None:
            current.append(line)
    if current is not None:
        out.append("\n".join(current))
    return out


def the_scan(log: Path) -> tuple[str, str]:
    """(header, query) of the gate table's input_unchanged scan as the build ran it."""
    for sql in node_statements(log, "deid_gate_results"):
        if "changed_records" in sql and "source_fingerprint" in sql:
            start = sql.index("select coalesce(changed_records")
            header = sql[:start].split("*/", 1)[-1]
            return header, sql[start:].strip().rstrip(";")
    raise SystemExit(f"{log}: no gate scan of deid_gate_results")


def the_proof(log: Path) -> str:
    """The pattern table's weighted fingerprint (exact_gate.sql) as the build ran it."""
    for sql in node_statements(log, "deid_gate_results"):
        if "pattern_rows" in sql and "sum(n)" in sql and "changed_records" not in sql:
            return sql[sql.index("select "):].strip().rstrip(";")
    raise SystemExit(f"{log}: no pattern proof of deid_gate_results")


def _caller() -> Any:
    # (the build's release names its columns plainly: ident as they are)
    return macro_caller([ROOT / "macros" / "gates" / "checked_fingerprint.sql",
                         ROOT / "macros" / "publish" / "table_fingerprint.sql"], lambda call: {
        "dbt_deid": SimpleNamespace(
            ident=lambda n: n, literal=lambda v: "'" + str(v).replace("'", "''") + "'",
            postgres_record_hash_sql=call("postgres_record_hash_sql"),
            _fingerprint_count=call("_fingerprint_count"),
            _fingerprint_when=call("_fingerprint_when"))})


def record_form(old: str) -> tuple[str, list[str], list[str]]:
    """The new form of the scan `old` and the columns of its checked release's fingerprint and
    of its pattern proof: texts 1 and 3 replaced by their record hashes."""
    m = re.search(r"cross join lateral unnest\((array\[.*?\]), (array\[.*?\]), (array\[.*?\])\)"
                  r" as deid_fp__\(deid_row_text_1__, deid_row_text_2__, deid_row_text_3__\)",
                  old, re.S)
    if m is None:
        raise SystemExit("the scan has not the three unnested row texts of session 19")
    call = _caller()
    new = old[:m.start()] + f"cross join lateral unnest({m.group(2)}) as deid_fp__(" \
        "deid_row_text_2__)" + old[m.end():]
    columns = {}
    for i, text in ((1, m.group(1)), (3, m.group(3))):
        cols = re.findall(r"cast\(u\.([A-Za-z_][A-Za-z0-9_]*) as text\)", text)
        columns[i] = cols
        for seed in (0, 1):
            hashed = str(call("postgres_record_hash_sql")(cols, "u.", seed))
            new = new.replace(f"hashtextextended(deid_fp__.deid_row_text_{i}__, {seed})", hashed)
    assert "deid_row_text_1__" not in new and "deid_row_text_3__" not in new
    return new, columns[1], columns[3]


def _connect(args: argparse.Namespace) -> Any:
    import psycopg2

    return psycopg2.connect(host=args.host, port=args.port, user=args.user, dbname=args.dbname)


def run(args: argparse.Namespace, header: str, query: str) -> tuple[float, tuple]:
    """The query on a fresh connection after `header`, in one transaction: (seconds, row)."""
    con = _connect(args)
    try:
        with con.cursor() as cur:
            cur.execute(header)
            start = time.perf_counter()
            cur.execute(query)
            row = cur.fetchone()
            seconds = time.perf_counter() - start
            names = [d[0] for d in cur.description]
        con.rollback()
        return seconds, dict(zip(names, row, strict=True))
    finally:
        con.close()


def duckdb_scan(build: Path) -> tuple[Any, str]:
    """(connection, query): DuckDB's gate scan from its build's log, on bench.duckdb read-only."""
    import duckdb

    for sql in node_statements(build / "logs" / "dbt.log", "deid_gate_results"):
        if "changed_records" in sql and "source_fingerprint" in sql:
            query = sql[sql.index("select coalesce(changed_records"):].strip().rstrip(";")
            return duckdb.connect(str(build / "bench.duckdb"), read_only=True), query
    raise SystemExit(f"{build}: no DuckDB gate scan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", type=Path, required=True, help="the kept PostgreSQL build folder")
    ap.add_argument("--host", required=True)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--user", default="postgres")
    ap.add_argument("--dbname", default="postgres")
    ap.add_argument("--schema", default="bench_deid_work")
    ap.add_argument("--duckdb", type=Path, help="the kept DuckDB build folder (same run)")
    ap.add_argument("--pairs", type=int, default=2)
    args = ap.parse_args()
    header, old = the_scan(args.build / "logs" / "dbt.log")
    new, checked_cols, pattern_cols = record_form(old)
    call = _caller()
    proofs = {"old": the_proof(args.build / "logs" / "dbt.log"),
              "new": "select " + str(call("postgres__weighted_fingerprint_select_sql")(
                  pattern_cols, "", "n", ["pattern_rows", "pattern_fingerprint"]))
              + f' from "{args.schema}"."deid_suppressed_patterns"'}
    forms = {"old": old, "new": new}
    times: dict[str, list[float]] = {"old": [], "new": [], "duckdb": [], "old proof": [],
                                     "new proof": []}
    rows: dict[str, dict] = {}
    duck = duckdb_scan(args.duckdb) if args.duckdb else None
    for i in range(args.pairs):
        if duck is not None:
            utc, load = time.strftime("%H:%M:%S", time.gmtime()), os.getloadavg()[0]
            start = time.perf_counter()
            duck[0].execute(duck[1]).fetchall()
            times["duckdb"].append(time.perf_counter() - start)
            print(f"{utc} UTC pair {i + 1} duckdb: {times['duckdb'][-1]:.2f} s, load {load:.1f}",
                  flush=True)
        for form in (("old", "new") if i % 2 == 0 else ("new", "old")):
            utc, load = time.strftime("%H:%M:%S", time.gmtime()), os.getloadavg()[0]
            seconds, rows[form] = run(args, header, forms[form])
            times[form].append(seconds)
            print(f"{utc} UTC pair {i + 1} {form}: {seconds:.2f} s, load {load:.1f}", flush=True)
            seconds, rows[form + " proof"] = run(args, header, proofs[form])
            times[form + " proof"].append(seconds)
            print(f"  {form} pattern proof (deid_suppressed_patterns): {seconds:.2f} s", flush=True)
    changed = {"fingerprint", "pattern_fingerprint"}
    same = {k: v for k, v in rows["old"].items() if k not in changed} == \
        {k: v for k, v in rows["new"].items() if k not in changed}
    own = run(args, header, "select " + str(call("postgres_record_fingerprint_select_sql")(
        checked_cols, "", None, ["row_count", "fingerprint"])) + f' from "{args.schema}".'
        '"deid_suppressed"')[1]
    proof = rows["new proof"]
    assert rows["old proof"]["pattern_fingerprint"] == rows["old"]["pattern_fingerprint"]
    new_row = rows["new"]
    print(f"other columns equal: {same}; checked release alone: rows {own['row_count']}"
          f" {'==' if own['fingerprint'] == new_row['fingerprint'] else '!='} the scan's;"
          f" pattern table: rows {proof['pattern_rows']}"
          f" {'==' if proof['pattern_fingerprint'] == new_row['pattern_fingerprint'] else '!='}"
          " the scan's pattern proof")
    line = f"median old {statistics.median(times['old']):.2f} s, new" \
        f" {statistics.median(times['new']):.2f} s; pattern proof old" \
        f" {statistics.median(times['old proof']):.2f} s, new" \
        f" {statistics.median(times['new proof']):.2f} s"
    if times["duckdb"]:
        d = statistics.median(times["duckdb"])
        line += f", duckdb {d:.2f} s (ratios old {statistics.median(times['old']) / d:.2f}x," \
            f" new {statistics.median(times['new']) / d:.2f}x)"
    print(line)


if __name__ == "__main__":
    main()
