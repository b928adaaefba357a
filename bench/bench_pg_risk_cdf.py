"""Time PostgreSQL's risk CDF (postgres__risk_cdf_sql, `deid_diagnostics`' three stages) in
two forms on the tables of a kept PostgreSQL build, old and new alternated in one process, and
check that they give the same rows (EXCEPT ALL both ways).

The old form is the package's postgres__risk_cdf_sql (macros/risk_suite/risk_cdf_postgres.sql,
session 16's window sums; ``--old-rev REV`` reads it as in that git revision), the new one the
candidate of ``--new-file`` (default bench/pg_risk_cdf_hash.sql, session 17's class sizes by
hash GROUP BYs on text keys, not in the package). Both are rendered with Jinja outside dbt
(tests/macro_render.py), for the stages and relations of the bench's release
(bench_engines.py's demo project: the combinations of ``COMBINATIONS``, the original stage on
``deid_generalized`` record by record, the generalized stage on ``deid_patterns``, the
published one on ``deid_suppressed_patterns``), each run as one statement in its own
transaction with the release models' header (work_mem 512MB, JIT off), its rows fetched.

Run against a kept build's server (``bench_engines.py --engines postgres --workdir DIR``
leaves DIR/postgres_<rows>/pg/data; start it yourself on a private socket, e.g.
``runuser -u postgres -- pg_ctl -D DIR/postgres_2375331/pg/data -o "-c listen_addresses=''
-c unix_socket_directories='/tmp/mysock' -p 54987" start``)::

    PYTHONPATH=$PWD nice -n 10 timeout 1800 .venv/bin/python bench/bench_pg_risk_cdf.py \\
        --host /tmp/mysock --port 54987 --user postgres --schema bench_deid_work --pairs 2

Prints one line per run (stage, form, seconds, rows, the server process's peak resident set
VmHWM when its /proc entry is readable, i.e. the server runs on this machine, load average)
and, per stage, the EXCEPT ALL counts both ways and the medians. Each timed statement runs on a
fresh connection (its own server process), so VmHWM is that statement's peak.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.macro_render import macro_caller  # noqa: E402 - after the path

COMBINATIONS = [["province", "los_days", "age", "gender", "cmg", "short_cci"],
                ["province", "los_days", "age", "gender", "diag_block", "short_cci"],
                ["province", "los_days", "age", "gender", "diag_chapter", "short_cci"]]
#: the original stage: the QIs released from another QI's source column
SAME_VALUES = {"short_cci": "cci_code", "diag_block": "mrdx", "diag_chapter": "mrdx"}
HEADER = ("select set_config('work_mem', '512MB', true);"
          " select set_config('jit', 'off', true);")


def _caller(cdf_file: Path) -> Any:
    files = [ROOT / "macros" / "risk_suite" / "diagnostics_sql.sql",
             ROOT / "macros" / "risk_suite" / "risk_cdf_at_size.sql", cdf_file]
    return macro_caller(files, lambda call: {
        "dbt_deid": SimpleNamespace(
            ident=lambda n: '"' + n + '"', literal=lambda v: "'" + str(v).replace("'", "''") + "'",
            risk_stage_columns=call("default__risk_stage_columns"),
            postgres_partition_key_sql=call("postgres_partition_key_sql"),
            risk_cdf_at_size_sql=call("risk_cdf_at_size_sql")),
        "dbt": SimpleNamespace(type_bigint=lambda: "bigint")})


def stages(schema: str) -> list[tuple[str, str, str | None, dict | None]]:
    """(stage, relation, count column, same_values) of the diagnostics' three CDFs."""
    return [("original", f'"{schema}"."deid_generalized"', None, SAME_VALUES),
            ("generalized", f'"{schema}"."deid_patterns"', "n", None),
            ("published", f'"{schema}"."deid_suppressed_patterns"', "n", None)]


def render(cdf_file: Path, stage: tuple[str, str, str | None, dict | None]) -> str:
    name, relation, count, same = stage
    return str(_caller(cdf_file)("postgres__risk_cdf_sql")(relation, "abstract_id", COMBINATIONS,
                                                            name, count, same))


def _peak_mib(pid: int) -> str:
    """The server process's peak resident set (VmHWM) in MiB, or '-' if not readable here."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return f"{int(line.split()[1]) // 1024} MiB"
    except OSError:
        pass
    return "-"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--host", required=True, help="the server's socket directory")
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--user", default="postgres")
    ap.add_argument("--schema", default="bench_deid_work")
    ap.add_argument("--old-rev", default=None, help="the package's form as in this revision")
    ap.add_argument("--new-file", type=Path, default=ROOT / "bench" / "pg_risk_cdf_hash.sql")
    ap.add_argument("--pairs", type=int, default=2)
    ap.add_argument("--stages", default="original,generalized,published")
    args = ap.parse_args()
    import psycopg2

    with tempfile.TemporaryDirectory() as tmp:
        old_file = ROOT / "macros" / "risk_suite" / "risk_cdf_postgres.sql"
        if args.old_rev:
            old_file = Path(tmp) / "risk_cdf_postgres.sql"
            old_file.write_text(subprocess.run(
                ["git", "show", f"{args.old_rev}:macros/risk_suite/risk_cdf_postgres.sql"],
                cwd=ROOT, check=True, capture_output=True, text=True).stdout)
        new_file = args.new_file
        con = psycopg2.connect(host=args.host, port=args.port, user=args.user, dbname="postgres")
        picked = [s for s in stages(args.schema) if s[0] in args.stages.split(",")]
        for stage in picked:
            sql = {"old": render(old_file, stage), "new": render(new_file, stage)}
            assert sql["old"] != sql["new"]
            with con.cursor() as cur:
                cur.execute(HEADER)
                counts = []
                for a, b in (("old", "new"), ("new", "old")):
                    cur.execute(f"select count(*) from (({sql[a]}) except all ({sql[b]})) as d")
                    counts.append(cur.fetchone()[0])
            con.rollback()
            print(f"{stage[0]}: EXCEPT ALL old-new {counts[0]}, new-old {counts[1]}", flush=True)
            times: dict[str, list[float]] = {"old": [], "new": []}
            order = ["old", "new", "new", "old"] * args.pairs
            for form in order[: 2 * args.pairs]:
                run = psycopg2.connect(host=args.host, port=args.port, user=args.user,
                                       dbname="postgres")
                with run.cursor() as cur:
                    cur.execute("select pg_backend_pid()")
                    pid = cur.fetchone()[0]
                    cur.execute(HEADER)
                    start = time.perf_counter()
                    cur.execute(sql[form])
                    rows = cur.fetchall()
                    took = time.perf_counter() - start
                hwm = _peak_mib(pid)
                run.rollback()
                run.close()
                times[form].append(took)
                print(f"{stage[0]} {form}: {took:.2f} s, {len(rows)} rows, VmHWM {hwm}, "
                      f"{time.strftime('%H:%M:%S', time.gmtime())} UTC, "
                      f"load {os.getloadavg()[0]:.1f}", flush=True)
            print(f"{stage[0]} medians: old {statistics.median(times['old']):.2f} s, "
                  f"new {statistics.median(times['new']):.2f} s", flush=True)
        con.close()


if __name__ == "__main__":
    main()
