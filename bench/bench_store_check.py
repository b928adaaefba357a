"""What the check of the stored rows costs a build (review 19, F2: docs/combined-lines.md,
"Review 19 F2: the store's rows bound to their history row"). Not a test.

    PYTHONPATH=<worktree>/src:<worktree> nice -n 10 .venv/bin/python bench/bench_store_check.py \\
        --keep /tmp/s19-store-bench-main --workdir DIR --versions 2,6 \\
        --engines duckdb,postgres [--repeat 2]

``--keep`` is a folder kept by ``bench/bench_refresh_dbt.py --warm --keep DIR`` (its line after
version 2, ``line.duckdb``: the per-record store holds versions 1 and 2 of the integration
release at 2.4 million records, 4.8 million rows); it is never written. In ``--workdir`` a copy
of the store is made into a line of N versions for each N of ``--versions`` (version i holds
the rows of stored version 1 + i % 2 under a release id of its own: N x 2.4 million rows), and
on each engine two statements are timed, alternated ``--repeat`` times (best of the repeats):

* ``integrity`` (the baseline): the project-wide scan of the store every build already runs
  (store_integrity_problems: distinct record keys, key fingerprints and rows per release);
* ``check``: the check this change adds, the rendered stored_fingerprints_sql of
  macros/gates/stored_rows_check.sql over the N releases in its grouped form (one scan
  grouped by release and by the columns written with one value per release; the record key,
  cells and true values fingerprinted; PostgreSQL's form builds the row text once per row in a
  LATERAL): the form of PostgreSQL and Spark (stored_constants_grouped);
* ``check_all``: the same with every column fingerprinted (only release_id grouped): DuckDB's
  form, where hashing ten more columns is cheaper than grouping by them.

PostgreSQL: a fresh cluster in ``DIR/pg`` (``initdb`` as the ``postgres`` user, a private unix
socket, port ``--port``), the store loaded with COPY from DuckDB's CSV, then grown to N versions
with INSERT ... SELECT; each statement runs in a transaction with the release models' header
(work_mem 512MB, jit off: release_sql_header). The server is stopped at the end. Prints one
line per statement (engine, N, rows, seconds, check/integrity ratio, check seconds per million
rows), the load average and the UTC time. The machine may be shared: read the ratios of one
run.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import duckdb

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.macro_render import macro_caller  # noqa: E402

STORE = "main_deid_work.deid_release_records"
KEY = "main_deid_work.deid_history_key"
FILES = [ROOT / "macros" / "gates" / "stored_rows_check.sql",
         ROOT / "macros" / "publish" / "table_fingerprint.sql"]


def log(msg: str) -> None:
    print(f"[bench_store_check {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def check_sql(engine: str, relation: str, columns: list[str], ids: list[str],
              constants: list[str] | None = None) -> str:
    """The package's stored_fingerprints_sql for ``engine``, rendered outside dbt."""
    names = {m for f in FILES for m in re.findall(r"{%-?\s*macro\s+(\w+)\s*\(", f.read_text())}

    def context(call):
        def dispatch(name: str, package: str):
            return call(f"{engine}__{name}" if f"{engine}__{name}" in names
                        else f"default__{name}")

        class Namespace:
            def __getattr__(self, name: str):
                stubs = {"own": lambda m: m, "ident": lambda n: '"' + n + '"',
                         "literal": lambda v: "'" + str(v).replace("'", "''") + "'"}
                return stubs[name] if name in stubs else call(name)

        return {"dbt_deid": Namespace(), "target": SimpleNamespace(type=engine),
                "adapter": SimpleNamespace(dispatch=dispatch),
                "dbt": SimpleNamespace(type_string=lambda: "varchar" if engine == "duckdb"
                                       else "text")}

    quoted = ", ".join("'" + i + "'" for i in ids)
    if constants is None:  # as record_release_records splits them
        varying = ["record_key"] + columns[11:]
        constants = [c for c in columns if c not in varying and c != "release_id"]
        columns = varying
    return str(macro_caller(FILES, context)("stored_fingerprints_sql")(relation, columns, quoted,
                                                                       constants))


def forms_for(engine: str, columns: list[str], ids: list[str]) -> dict[str, str]:
    return {"integrity": integrity_sql("bench.store", KEY),
            "check": check_sql(engine, "bench.store", columns, ids),
            "check_all": check_sql(engine, "bench.store", columns, ids, constants=[])}


def integrity_sql(store: str, key: str) -> str:
    """store_integrity_problems' scan of the store (macros/gates/store_integrity.sql)."""
    return (f"select r.release_id, count(distinct r.record_key), sum(case when r.key_check is null"
            f" or r.key_check <> md5('dbt_deid-key-check|' || k.key_value) then 1 else 0 end),"
            f" count(*) from {store} as r cross join {key} as k group by r.release_id")


def grow_sql(store: str, source: str, ids: list[str], n: int, start: int) -> list[str]:
    """INSERTs adding versions start..n-1 (version i: stored version 1 + i % 2's rows)."""
    return [f"insert into {store} select * replace ('bench-{i:03d}' as release_id)"
            f" from {source} where release_id = '{ids[i % 2]}'" for i in range(start, n)]


def timed(run: Any, sql: str) -> tuple[float, Any]:
    t = time.perf_counter()
    rows = run(sql)
    return time.perf_counter() - t, rows


def report(engine: str, n: int, rows: int, best: dict[str, float]) -> None:
    load = os.getloadavg()
    base = best["integrity"]
    print(f"{engine:8s} versions {n:3d} rows {rows:11,d} integrity {base:7.2f} s"
          + "".join(f"  {k} {best[k]:7.2f} s ({best[k] / base:4.2f}x, {best[k] / rows * 1e6:5.2f}"
                    " s/M rows)" for k in ("check", "check_all"))
          + f"  load {load[0]:.1f} {time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())}",
          flush=True)


def bench_duckdb(args: argparse.Namespace, line: Path, ids: list[str], columns: list[str],
                 counts: list[int]) -> None:
    con = duckdb.connect(str(line))
    con.execute("create schema if not exists bench")
    con.execute(f"create or replace table bench.source as select * from {STORE}")
    con.execute("create or replace table bench.store as select * from bench.source limit 0")
    have = 0
    for n in counts:
        for sql in grow_sql("bench.store", "bench.source", ids, n, have):
            con.execute(sql)
        have = n
        rows = con.execute("select count(*) from bench.store").fetchone()[0]
        bench_ids = [f"bench-{i:03d}" for i in range(n)]
        forms = forms_for("duckdb", columns, bench_ids)
        best = {k: float("inf") for k in forms}
        for r in range(args.repeat):
            for name in (list(forms) if r % 2 == 0 else list(forms)[::-1]):
                seconds, out = timed(lambda s: con.execute(s).fetchall(), forms[name])
                assert len(out) == n, (name, len(out))  # one group per release
                best[name] = min(best[name], seconds)
        report("duckdb", n, rows, best)
    con.close()


def _pg(args: argparse.Namespace, *cmd: str) -> None:
    subprocess.run(["runuser", "-u", "postgres", "--", *cmd], check=True,
                   stdout=subprocess.DEVNULL)


def bench_postgres(args: argparse.Namespace, line: Path, ids: list[str], columns: list[str],
                   counts: list[int]) -> None:
    import psycopg2

    bindir = Path(subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True,
                                 check=True).stdout.strip())
    pg, sock = args.workdir / "pg", args.workdir / "sock"
    for d in (pg, sock):
        d.mkdir(parents=True, exist_ok=True)
        shutil.chown(d, "postgres")
    _pg(args, str(bindir / "initdb"), "-D", str(pg / "data"), "-A", "trust", "-U", "postgres")
    _pg(args, str(bindir / "pg_ctl"), "-D", str(pg / "data"), "-l", str(pg / "server.log"), "-w",
        "-o", f"-c listen_addresses='' -c unix_socket_directories='{sock}' -p {args.port}"
        " -c shared_buffers=1GB -c max_wal_size=8GB", "start")
    try:
        csv = args.workdir / "store.csv"
        with duckdb.connect(str(line), read_only=True) as con:
            con.execute(f"copy (select * from {STORE}) to '{csv}' (header false)")
        os.chmod(csv, 0o644)
        db = psycopg2.connect(host=str(sock), port=args.port, user="postgres", dbname="postgres")
        db.autocommit = True
        cur = db.cursor()
        cols = ", ".join(f'"{c}" {"bigint" if c == "release_version" else "text"}'
                         for c in columns)
        cur.execute("create schema if not exists main_deid_work; create schema if not exists bench")
        cur.execute(f"create table bench.source ({cols})")
        with open(csv) as f:
            cur.copy_expert("copy bench.source from stdin with (format csv)", f)
        cur.execute(f"create table {KEY} as select 'bench-key' as key_value")
        cur.execute("create table bench.store (like bench.source)")
        have = 0
        for n in counts:
            for sql in grow_sql("bench.store", "bench.source", ids, n, have):
                cur.execute(_pg_grow(sql, columns))
            have = n
            cur.execute("vacuum analyze bench.store")
            cur.execute("select count(*) from bench.store")
            rows = cur.fetchone()[0]
            bench_ids = [f"bench-{i:03d}" for i in range(n)]
            forms = forms_for("postgres", columns, bench_ids)
            best = {k: float("inf") for k in forms}
            for r in range(args.repeat):
                for name in (list(forms) if r % 2 == 0 else list(forms)[::-1]):
                    def run(sql: str) -> list:
                        with db.cursor() as c:
                            c.execute("begin; select set_config('work_mem', '512MB', true);"
                                      " select set_config('jit', 'off', true)")
                            c.execute(sql)
                            out = c.fetchall()
                            c.execute("commit")
                            return out
                    seconds, out = timed(run, forms[name])
                    assert len(out) == n, (name, len(out))  # one group per release
                    best[name] = min(best[name], seconds)
            report("postgres", n, rows, best)
        db.close()
    finally:
        _pg(args, str(bindir / "pg_ctl"), "-D", str(pg / "data"), "-m", "fast", "-w", "stop")


def _pg_grow(sql: str, columns: list[str]) -> str:
    """grow_sql's DuckDB INSERT (``select * replace``) in PostgreSQL's words."""
    m = re.match(r"insert into (\S+) select \* replace \('([^']+)' as release_id\) from (\S+)"
                 r" where release_id = '([^']+)'", sql)
    target, new_id, source, old_id = m.groups()
    select = ", ".join(f"'{new_id}'" if c == "release_id" else f'"{c}"' for c in columns)
    return f"insert into {target} select {select} from {source} where release_id = '{old_id}'"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--keep", type=Path, default=Path("/tmp/s19-store-bench-main"))
    ap.add_argument("--workdir", type=Path, required=True)
    ap.add_argument("--versions", default="2,6")
    ap.add_argument("--engines", default="duckdb,postgres")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--port", type=int, default=55420)
    args = ap.parse_args()
    counts = sorted(int(x) for x in args.versions.split(","))
    args.workdir.mkdir(parents=True, exist_ok=True)
    line = args.workdir / "line.duckdb"
    log(f"copying {args.keep / 'line.duckdb'}")
    shutil.copy(args.keep / "line.duckdb", line)
    with duckdb.connect(str(line), read_only=True) as con:
        ids = [r[0] for r in con.execute(f"select release_id from {STORE} group by release_id"
                                         " order by min(release_version)").fetchall()]
        columns = [r[0] for r in con.execute(f"describe {STORE}").fetchall()]
    if len(ids) != 2:
        raise SystemExit(f"{STORE}: {len(ids)} stored release(s), 2 expected (a kept line after"
                         " version 2)")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                            capture_output=True, text=True).stdout.strip()
    print(f"commit {commit}, {len(columns)} store columns, versions {counts},"
          f" repeat {args.repeat}", flush=True)
    for engine in args.engines.split(","):
        log(f"{engine}")
        {"duckdb": bench_duckdb, "postgres": bench_postgres}[engine](args, line, ids, columns,
                                                                     counts)


if __name__ == "__main__":
    main()
