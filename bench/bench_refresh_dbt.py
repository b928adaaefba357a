"""Benchmark of a refresh through dbt (issue 32): a nightly load of 1% new records, published by
`dbt run` of the release, against a full build of the same release on the same records. Not a
test.

    nice timeout 360 .venv/bin/python bench/bench_refresh_dbt.py [--rows 100000] [--new 0.01]
        [--warm] [--top 15] [--keep DIR]

On the integration project (``integration_tests/``: its release, k = 5, three combinations,
seven QIs), in one scratch folder:

1. the sources and hierarchies (``dbt build --exclude package:dbt_deid``, ``it_rows`` = rows;
   not timed) and a copy of that database;
2. version 1: ``dbt run --select package:dbt_deid`` (timed: a full build of ``rows`` records);
3. ``--new`` x rows new synthetic abstracts appended to the source (another seed, ids after the
   first), in the database and in the copy;
4. version 2: the same command on the database (timed: the refresh; the line has a version);
5. the full build of the same release on the copy, with the same records as version 2 and no
   store (timed: what a build of the same release costs without the line).

Prints the wall times, the ratio refresh / full build (the issue's target: at most 0.5), the
same ratio of dbt's run phase (after parsing the project, which costs both the same), the
cells suppressed among the new records by the refresh next to what the full build suppresses
among the same records, and the nodes that cost the most (``run_results.json`` of each run).
``--warm``: version 2 and the full build reuse version 1's parse (a scheduled job in one
project folder). The machine may be shared: read the ratios of one run.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from dbt_deid.tools.synthetic.discharge import discharge_table  # noqa: E402

PROJECT = REPO / "integration_tests"
DBT = str(Path(sys.executable).parent / "dbt")
SOURCE = "main.discharge_abstracts"


def log(msg: str) -> None:
    print(f"[bench_refresh_dbt {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def dbt(args: list[str], work: Path, db: Path, rows: int, label: str,
        warm_from: Path | None = None) -> float:
    """Run dbt in the integration project on ``db``; the wall time (node times: `node_times`).
    ``warm_from``: the work folder of an earlier run whose parse this one reuses (dbt's partial
    parsing: its ``partial_parse.msgpack`` copied into this run's target first; the run fails
    when dbt parsed everything again)."""
    cmd = [DBT, *args, "--profiles-dir", "profiles", "--target-path", str(work / "target"),
           "--log-path", str(work / "logs"), "--vars", json.dumps({"it_rows": rows})]
    env = {**os.environ, "DBT_DEID_DUCKDB_PATH": str(db)}
    if warm_from is not None:
        (work / "target").mkdir(parents=True, exist_ok=True)
        shutil.copy(warm_from / "target" / "partial_parse.msgpack", work / "target")
    log(f"{label}: dbt {' '.join(args)}" + (" (partial parsing)" if warm_from else ""))
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=PROJECT, env=env, capture_output=True, text=True)
    took = time.perf_counter() - t0
    if proc.returncode:
        print(proc.stdout[-4000:], proc.stderr[-2000:])
        raise SystemExit(f"{label}: dbt failed")
    if warm_from is not None and "Unable to do partial parsing" in proc.stdout:
        raise SystemExit(f"{label}: dbt did not reuse the parse of {warm_from.name}")
    log(f"{label}: {took:.1f} s")
    return took


def run_phase(work: Path) -> float:
    """dbt's own elapsed time of the run's nodes (``run_results.json``: after parsing)."""
    return float(json.loads((work / "target" / "run_results.json").read_text())["elapsed_time"])


def node_times(work: Path) -> dict[str, float]:
    """Each node's execution time (s) from the run's ``run_results.json`` (name -> seconds)."""
    path = work / "target" / "run_results.json"
    if not path.exists():
        return {}
    results = json.loads(path.read_text())["results"]
    return {r["unique_id"].split(".")[-1]: float(r.get("execution_time") or 0.0)
            for r in results}


def breakdown(refresh: dict[str, float], full: dict[str, float], top: int) -> None:
    """Print the ``top`` costliest nodes of the refresh and of the full build side by side, and
    the refresh's time in nodes that cost it about as much as the full build (within 25%)."""
    names = sorted(set(refresh) | set(full), key=lambda n: -max(refresh.get(n, 0.0),
                                                                 full.get(n, 0.0)))
    print(f"  nodes (top {top} by time; refresh s / full build s):")
    for name in names[:top]:
        r = f"{refresh[name]:7.1f}" if name in refresh else "      -"
        f = f"{full[name]:7.1f}" if name in full else "      -"
        print(f"    {name:<44} {r} {f}")
    same = [n for n in names if n in refresh and n in full and full[n] > 0.5
            and abs(refresh[n] - full[n]) <= 0.25 * full[n]]
    print(f"  in nodes costing the refresh about as much as the full build: "
          f"{sum(refresh[n] for n in same):.1f} s of {sum(refresh.values()):.1f} s"
          f" ({len(same)} nodes)")
    print(f"  sum of node times: refresh {sum(refresh.values()):.1f} s,"
          f" full build {sum(full.values()):.1f} s")


def append(db: Path, rows: int, first_id: int) -> None:
    new = discharge_table(rows, seed=909, first_id=first_id).to_pandas()
    with duckdb.connect(str(db)) as con:
        cols = [c[0] for c in con.execute(f"select * from {SOURCE} limit 0").description]
        con.register("deid_new", new[cols])
        con.execute(f"insert into {SOURCE} select * from deid_new")


def new_cells(db: Path, first_id: int) -> int:
    """Cells suppressed among the records with ids from ``first_id`` (deid_suppressed)."""
    with duckdb.connect(str(db), read_only=True) as con:
        cols = [c[0] for c in con.execute(
            "select * from main_deid_work.deid_suppressed limit 0").description]
        qis = [c for c in cols if f"{c}__generalized" in cols]
        expr = " + ".join(f"case when {q} is null then 1 else 0 end" for q in qis)
        return int(con.execute(f"select sum({expr}) from main_deid_work.deid_suppressed"
                               f" where abstract_id >= {first_id}").fetchone()[0] or 0)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--new", type=float, default=0.01)
    ap.add_argument("--top", type=int, default=15, help="nodes listed in the breakdown")
    ap.add_argument("--warm", action="store_true",
                    help="version 2 and the full build reuse version 1's parse (dbt's partial"
                         " parsing, as a scheduled job in one project folder does); all three"
                         " runs then use one database path (each file renamed to"
                         " release.duckdb for its run)")
    ap.add_argument("--keep", type=Path, default=None,
                    help="work in this (new) folder and keep it: the databases, each run's target"
                         " and logs, and line_before_refresh.duckdb (the line before version 2)")
    args = ap.parse_args(argv)
    new = max(1, round(args.rows * args.new))
    first_id = 10 * args.rows + 1
    subprocess.run([DBT, "deps", "--profiles-dir", "profiles", "--quiet"], cwd=PROJECT,
                   check=True, capture_output=True)
    with tempfile.TemporaryDirectory(prefix="bench_refresh_dbt_") as tmp:
        work = Path(tmp) if args.keep is None else args.keep
        work.mkdir(parents=True, exist_ok=True)
        db, fresh = work / "line.duckdb", work / "fresh.duckdb"
        dbt(["build", "--exclude", "package:dbt_deid"], work / "sources", db, args.rows,
            "sources")
        shutil.copy(db, fresh)
        shared = work / "release.duckdb"

        def run_on(path: Path, folder: str, label: str, warm: Path | None = None) -> float:
            """dbt run of the release on the database ``path``; under --warm the file is
            renamed to one path for the run (the profile, and so the parse, stays the same for
            every run; DuckDB names the catalog after the file)."""
            run = ["run", "--select", "package:dbt_deid"]
            if not args.warm:
                return dbt(run, work / folder, path, args.rows, label)
            path.rename(shared)
            try:
                return dbt(run, work / folder, shared, args.rows, label, warm)
            finally:
                shared.rename(path)

        v1 = run_on(db, "v1", "version 1 (full build)")
        warm = work / "v1" if args.warm else None
        append(db, new, first_id)
        append(fresh, new, first_id)
        if args.keep is not None:
            shutil.copy(db, work / "line_before_refresh.duckdb")
        v2 = run_on(db, "v2", "version 2 (refresh)", warm)
        full = run_on(fresh, "full", "full build of the same records", warm)
        print(f"bench_refresh_dbt: {args.rows} records + {new} new ({100 * args.new:.1f}%),"
              " integration release (k = 5, three combinations)")
        print(f"  version 1, full build:            {v1:.1f} s")
        print(f"  version 2, refresh:               {v2:.1f} s")
        print(f"  full build of the same records:   {full:.1f} s")
        print(f"  ratio refresh / full build: {v2 / full:.2f}"
              + (" (both reuse version 1's parse)" if args.warm else " (each parses the project)"))
        r2, rf = run_phase(work / "v2"), run_phase(work / "full")
        print(f"  dbt's run phase (after parsing): refresh {r2:.1f} s, full build {rf:.1f} s,"
              f" ratio {r2 / rf:.2f}")
        print(f"  cells suppressed among the {new} new records: refresh"
              f" {new_cells(db, first_id)}, full build {new_cells(fresh, first_id)}")
        breakdown(node_times(work / "v2"), node_times(work / "full"), args.top)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
