"""Benchmark of a refresh through dbt (issue 32): a nightly load of 1% new records, published by
`dbt run` of the release, against a full build of the same release on the same records. Not a
test.

    nice timeout 360 .venv/bin/python bench/bench_refresh_dbt.py [--rows 100000] [--new 0.01]

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

Prints the wall times, the ratio refresh / full build (the issue's target: at most 0.5), and
the cells suppressed among the new records by the refresh next to what the full build
suppresses among the same records. The machine may be shared: read the ratios of one run.
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


def dbt(args: list[str], work: Path, db: Path, rows: int, label: str) -> float:
    """Run dbt in the integration project on ``db``; the wall time."""
    cmd = [DBT, *args, "--profiles-dir", "profiles", "--target-path", str(work / "target"),
           "--log-path", str(work / "logs"), "--vars", json.dumps({"it_rows": rows})]
    env = {**os.environ, "DBT_DEID_DUCKDB_PATH": str(db)}
    log(f"{label}: dbt {' '.join(args)}")
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=PROJECT, env=env, capture_output=True, text=True)
    took = time.perf_counter() - t0
    if proc.returncode:
        print(proc.stdout[-4000:], proc.stderr[-2000:])
        raise SystemExit(f"{label}: dbt failed")
    log(f"{label}: {took:.1f} s")
    return took


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
    args = ap.parse_args(argv)
    new = max(1, round(args.rows * args.new))
    first_id = 10 * args.rows + 1
    subprocess.run([DBT, "deps", "--profiles-dir", "profiles", "--quiet"], cwd=PROJECT,
                   check=True, capture_output=True)
    with tempfile.TemporaryDirectory(prefix="bench_refresh_dbt_") as tmp:
        work = Path(tmp)
        db, fresh = work / "line.duckdb", work / "fresh.duckdb"
        dbt(["build", "--exclude", "package:dbt_deid"], work / "sources", db, args.rows,
            "sources")
        shutil.copy(db, fresh)
        run = ["run", "--select", "package:dbt_deid"]
        v1 = dbt(run, work / "v1", db, args.rows, "version 1 (full build)")
        append(db, new, first_id)
        append(fresh, new, first_id)
        v2 = dbt(run, work / "v2", db, args.rows, "version 2 (refresh)")
        full = dbt(run, work / "full", fresh, args.rows, "full build of the same records")
        print(f"bench_refresh_dbt: {args.rows} records + {new} new ({100 * args.new:.1f}%),"
              " integration release (k = 5, three combinations)")
        print(f"  version 1, full build:            {v1:.1f} s")
        print(f"  version 2, refresh:               {v2:.1f} s")
        print(f"  full build of the same records:   {full:.1f} s")
        print(f"  ratio refresh / full build: {v2 / full:.2f}")
        print(f"  cells suppressed among the {new} new records: refresh"
              f" {new_cells(db, first_id)}, full build {new_cells(fresh, first_id)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
