"""Time two forms of one PostgreSQL statement on the tables of a kept build, old and new
alternated in one process, and check that they give the same rows (EXCEPT ALL both ways).

Each form is a file holding one query (a model's compiled body: a kept build's
``target/compiled/.../<model>.sql`` for the old form, ``dbt compile`` of a branch against the
same server for the new one, or any SELECT). Each run creates a table from it
(``create table ... as``, as dbt's table materialization does) in a scratch schema, on a fresh
connection (its own server process), inside one transaction that first runs ``--header`` (a
file of statements: the model's sql_header, e.g. the release models' ``work_mem``/``jit``
settings). Runs alternate: old, new, then new, old, and so on (``--pairs``), so that a load
rising or falling through the run weighs on both alike. After the timed runs, the last two
tables are compared with EXCEPT ALL both ways (``--ignore COLUMN`` leaves out columns that
legitimately differ, e.g. an invocation id) and dropped with the scratch schema.

With ``--explain DIR``, each form also runs once under ``EXPLAIN (ANALYZE, BUFFERS)`` (its plan
written to ``DIR/<old|new>.plan``; not timed as a run).

Run against a kept build's server (``bench_engines.py --engines postgres --workdir DIR`` leaves
``DIR/postgres_<rows>/pg/data``; start it on a private socket, e.g. ``runuser -u postgres --
pg_ctl -D DATA -o "-c listen_addresses='' -c unix_socket_directories='/tmp/mysock' -p 54987"
start``, on a copy of the folder if the build must stay untouched)::

    PYTHONPATH=$PWD nice -n 10 .venv/bin/python bench/bench_pg_statements.py \\
        --host /tmp/mysock --port 54987 --old old.sql --new new.sql --header header.sql \\
        --pairs 2

Prints one line per run (form, seconds, rows, the server process's peak resident set VmHWM
when its /proc entry is readable, i.e. the server runs on this machine, load average, UTC
time) and the EXCEPT ALL counts and medians.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path
from typing import Any

SCRATCH = "deid_bench_scratch"


def _connect(args: argparse.Namespace) -> Any:
    import psycopg2

    return psycopg2.connect(host=args.host, port=args.port, user=args.user, dbname=args.dbname)


def _peak_mib(pid: int) -> str:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return f"{int(line.split()[1]) / 1024:.0f}"
    except OSError:
        pass
    return "-"


def run_form(args: argparse.Namespace, header: str, query: str, table: str,
             explain: Path | None = None) -> tuple[float, int, str]:
    """``create table SCRATCH.<table> as <query>`` in one transaction after ``header`` on a
    fresh connection: (seconds, rows, peak MiB). With ``explain``, EXPLAIN ANALYZE instead,
    the plan written there."""
    con = _connect(args)
    try:
        with con.cursor() as cur:
            cur.execute("select pg_backend_pid()")
            pid = cur.fetchone()[0]
            cur.execute(f"drop table if exists {SCRATCH}.{table}")
            con.commit()
            if header.strip():
                cur.execute(header)
            target = f"create table {SCRATCH}.{table} as {query}"
            start = time.perf_counter()
            if explain is not None:
                cur.execute(f"explain (analyze, buffers) {target}")
                explain.write_text("\n".join(r[0] for r in cur.fetchall()) + "\n")
            else:
                cur.execute(target)
            seconds = time.perf_counter() - start
            peak = _peak_mib(pid)
            con.commit()
            rows = 0
            if explain is None:
                cur.execute(f"select count(*) from {SCRATCH}.{table}")
                rows = int(cur.fetchone()[0])
            else:
                cur.execute(f"drop table if exists {SCRATCH}.{table}")
                con.commit()
        return seconds, rows, peak
    finally:
        con.close()


def except_all(args: argparse.Namespace, ignore: list[str]) -> tuple[int, int]:
    """EXCEPT ALL both ways between the old and the new table, without ``ignore``'s columns
    (the columns of the old table, in its order, read by name from both)."""
    con = _connect(args)
    try:
        with con.cursor() as cur:
            cur.execute("set work_mem = '512MB'")  # the release models' setting: no spill
            cur.execute("select column_name from information_schema.columns where table_schema = %s"
                        " and table_name = 'deid_old' order by ordinal_position", (SCRATCH,))
            cols = [r[0] for r in cur.fetchall() if r[0] not in ignore]
            cur.execute("select column_name from information_schema.columns where table_schema = %s"
                        " and table_name = 'deid_new'", (SCRATCH,))
            new_cols = {r[0] for r in cur.fetchall()} - set(ignore)
            if set(cols) != new_cols:
                raise SystemExit("the two forms' columns differ: old only"
                                 f" {sorted(set(cols) - new_cols)},"
                                 f" new only {sorted(new_cols - set(cols))}")
            sel = ", ".join('"' + c.replace('"', '""') + '"' for c in cols)
            out = []
            for a, b in (("deid_old", "deid_new"), ("deid_new", "deid_old")):
                cur.execute(f"select count(*) from (select {sel} from {SCRATCH}.{a} except all"
                            f" select {sel} from {SCRATCH}.{b}) as d")
                out.append(int(cur.fetchone()[0]))
            return out[0], out[1]
    finally:
        con.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--host", required=True, help="the server's socket directory or host")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--user", default="postgres")
    ap.add_argument("--dbname", default="postgres")
    ap.add_argument("--old", type=Path, required=True, help="file: the old form's query")
    ap.add_argument("--new", type=Path, required=True, help="file: the new form's query")
    ap.add_argument("--header", type=Path, help="file: statements run first in each transaction")
    ap.add_argument("--new-header", type=Path,
                    help="file: the new form's header (default --header)")
    ap.add_argument("--pairs", type=int, default=2)
    ap.add_argument("--ignore", action="append", default=[], help="a column left out of EXCEPT ALL")
    ap.add_argument("--explain", type=Path, help="folder: one EXPLAIN ANALYZE per form")
    args = ap.parse_args()
    header = args.header.read_text() if args.header else ""
    forms = {"old": (header, args.old.read_text().strip().rstrip(";")),
             "new": (args.new_header.read_text() if args.new_header else header,
                     args.new.read_text().strip().rstrip(";"))}
    con = _connect(args)
    with con.cursor() as cur:
        cur.execute(f"create schema if not exists {SCRATCH}")
    con.commit()
    con.close()
    times: dict[str, list[float]] = {"old": [], "new": []}
    try:
        if args.explain:
            args.explain.mkdir(parents=True, exist_ok=True)
            for form in ("old", "new"):
                seconds, _, peak = run_form(args, *forms[form], f"deid_{form}",
                                            args.explain / f"{form}.plan")
                print(f"explain {form}: {seconds:.2f} s, peak {peak} MiB,"
                      f" plan {args.explain / f'{form}.plan'}", flush=True)
        rows = {}
        for i in range(args.pairs):
            for form in (("old", "new") if i % 2 == 0 else ("new", "old")):
                load = os.getloadavg()[0]
                utc = time.strftime("%H:%M:%S", time.gmtime())
                seconds, rows[form], peak = run_form(args, *forms[form], f"deid_{form}")
                times[form].append(seconds)
                print(f"{utc} UTC pair {i + 1} {form}: {seconds:.2f} s, {rows[form]:,} rows,"
                      f" peak {peak} MiB, load {load:.1f}", flush=True)
        left, right = except_all(args, args.ignore)
        print(f"EXCEPT ALL: old - new {left}, new - old {right}; rows old {rows['old']:,},"
              f" new {rows['new']:,}")
        print(f"median old {statistics.median(times['old']):.2f} s,"
              f" new {statistics.median(times['new']):.2f} s")
    finally:
        con = _connect(args)
        with con.cursor() as cur:
            cur.execute(f"drop schema if exists {SCRATCH} cascade")
        con.commit()
        con.close()


if __name__ == "__main__":
    main()
