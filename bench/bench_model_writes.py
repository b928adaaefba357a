"""Time writing the release's record-level working tables from their compiled SQL (not a test).

Issue 18, item 3: at 24 million records most of a build's CPU time is spent writing text
columns to the DuckDB file. This script takes the compiled SQL of models from dbt target
folders (``<target>/compiled/dbt_deid/models/...``: ``target_24M`` of a ``bench/bench_scale.py``
workdir, or a ``dbt compile`` of another version of the package against the same database) and
writes each as ``CREATE TABLE AS`` into a scratch schema of that database, one query at a time,
with the bench's DuckDB settings (2 threads, 3GB). A model that reads one written before it in
the list reads the copy just written from the same folder (``deid_suppressed`` reads the
``deid_generalized`` of the same version). The folders are run in turn, ``--repeat`` rounds,
alternated; it prints each model's best wall and CPU seconds of this process (DuckDB runs in
it) and the ratio to the first folder's (the baseline of the same run), then drops what it
wrote.

    .venv/bin/python bench/bench_model_writes.py --db /tmp/bscale/scale_large.duckdb \
        --target BEFORE_TARGET AFTER_TARGET [--models deid_generalized deid_suppressed]
"""

from __future__ import annotations

import argparse
import math
import re
import resource
import time
from pathlib import Path

import duckdb

SCRATCH = "deid_bench_scratch"


def cpu_seconds() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def compiled_sql(target: Path, model: str) -> str:
    """The compiled SELECT of ``model`` in ``target`` (one file of that name)."""
    found = sorted((target / "compiled").rglob(f"{model}.sql"))
    if len(found) != 1:
        raise SystemExit(f"{target}: expected one compiled {model}.sql, found {len(found)}")
    return found[0].read_text()


def write_models(con: duckdb.DuckDBPyConnection, target: Path,
                 models: list[str]) -> dict[str, tuple[float, float, int]]:
    """Write ``models`` of ``target`` in order; (wall, CPU, columns) per model."""
    out: dict[str, tuple[float, float, int]] = {}
    for model in models:
        sql = compiled_sql(target, model)
        for earlier in out:  # read this version's copy, not the built table
            sql = re.sub(rf'"[^"]*"\."{earlier}"(?![\w"])', f'{SCRATCH}."{earlier}"', sql)
        con.execute(f'drop table if exists {SCRATCH}."{model}"')
        t, c = time.perf_counter(), cpu_seconds()
        con.execute(f'create table {SCRATCH}."{model}" as {sql}')
        wall, cpu = time.perf_counter() - t, cpu_seconds() - c
        columns = len(con.execute(f'describe {SCRATCH}."{model}"').fetchall())
        out[model] = (wall, cpu, columns)
        con.execute("checkpoint")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", type=Path, required=True)
    ap.add_argument("--target", type=Path, nargs="+", required=True,
                    help="dbt target folders; the first is the baseline")
    ap.add_argument("--models", nargs="+", default=["deid_generalized", "deid_suppressed"])
    ap.add_argument("--repeat", type=int, default=2, help="alternated rounds")
    ap.add_argument("--memory-limit", default="3GB")
    args = ap.parse_args()
    con = duckdb.connect(str(args.db))
    con.execute(f"set threads = 2; set memory_limit = '{args.memory_limit}';"
                " set preserve_insertion_order = false")
    print(f"# {args.db}, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())},"
          f" {args.repeat} alternated round(s)")
    best: dict[tuple[int, str], list[float]] = {}
    columns: dict[tuple[int, str], int] = {}
    try:
        con.execute(f"create schema if not exists {SCRATCH}")
        for _ in range(args.repeat):
            for i, target in enumerate(args.target):
                for model, (wall, cpu, n) in write_models(con, target, args.models).items():
                    w, c = best.get((i, model), [math.inf, math.inf])
                    best[(i, model)] = [min(w, wall), min(c, cpu)]
                    columns[(i, model)] = n
    finally:
        con.execute(f"drop schema if exists {SCRATCH} cascade")
        con.close()
    for i, target in enumerate(args.target):
        print(f"{target}{' (baseline)' if i == 0 else ''}")
        for model in args.models:
            wall, cpu = best[(i, model)]
            ratio = cpu / best[(0, model)][1]
            print(f"  {model}: {columns[(i, model)]} columns, {wall:.1f} s wall,"
                  f" {cpu:.1f} s CPU ({ratio:.2f}x the baseline's CPU), best of {args.repeat}")


if __name__ == "__main__":
    main()
