"""Benchmark of one release on several engines (issue 16): not a test.

The seed-000 release of :mod:`bench_seed000` (El Emam et al. 2011, the recommended setting:
region, LOS weeks, age group and gender as demographics, adversary at CMG and short CCI, k = 20,
tau = 0.05) built from the demo's synthetic discharge abstracts with ``python -m dbt_deid build``
(the source models, the seeds and the release, as one user command) on each engine, in one run:

* ``duckdb``: embedded DuckDB, dbt runs the Python models;
* ``postgres``: a private PostgreSQL server started for the run (``initdb``/``pg_ctl``, as the
  tests do), dbt_deid computes the Python models through the adapter's connection;
* ``spark``: dbt-spark in session mode on a local Spark (``local[2]``, the demo profile's
  settings), record-level work in Spark SQL, Python models on the driver.

Per engine: the whole build's wall time and every node's time (``run_results.json``, which the
segmented runner fills with every segment and the Python models), the ratio to DuckDB at the
same number of records, and the nodes that dominate. Spark can run at a smaller size
(``--spark-rows``); DuckDB is then also run at that size, for its ratio.

    nice -n 10 .venv/bin/python bench/bench_engines.py [--rows 2375331]
        [--engines duckdb,postgres,spark] [--spark-rows 200000] [--top 8] [--workdir DIR]

Progress goes to stderr, the figures to stdout and ``<workdir>/bench_engines.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.integration.postgres_server

from bench_seed000 import (  # noqa: E402 - after the path
    DEMO,
    PAPER_ROWS,
    RELEASE_SELECTION,
    SEED,
    dbt_release,
    fmt_table,
    log,
    run_child,
)

from tests.integration.postgres_server import start_postgres  # noqa: E402

ENGINES = ("duckdb", "postgres", "spark")
TARGETS = {"duckdb": "dev", "postgres": "postgres", "spark": "spark"}


@contextmanager
def engine_env(engine: str, workdir: Path) -> Iterator[dict[str, str]]:
    """The environment for the demo profile's target of ``engine`` (a server for postgres)."""
    env = {**os.environ, "DBT_SEND_ANONYMOUS_USAGE_STATS": "0",
           "DBT_DEID_REPORT_DIR": str(workdir)}
    if engine == "duckdb":
        yield {**env, "DBT_DEID_DUCKDB_PATH": str(workdir / "bench.duckdb")}
    elif engine == "spark":
        yield {**env, "DBT_DEID_SPARK_DIR": str(workdir / "spark"),
               "DBT_DEID_SPARK_SCHEMA": "bench"}
    else:
        server = start_postgres(workdir / "pg")
        try:
            yield {**env, **server.env("bench")}
        finally:
            server.stop()


def build(engine: str, rows: int, workdir: Path) -> dict[str, Any]:
    """``python -m dbt_deid build`` of the release at ``rows`` records on ``engine``."""
    workdir.mkdir(parents=True, exist_ok=True)
    variables = json.dumps({"demo_rows": rows, "demo_seed": SEED,
                            "deid_release": dbt_release(0.05)})
    cmd = [sys.executable, "-m", "dbt_deid", "build", "--target", TARGETS[engine],
           "--profiles-dir", "profiles", "--target-path", str(workdir / "target"),
           "--log-path", str(workdir / "logs"), *RELEASE_SELECTION, "--vars", variables]
    log(f"{engine}: build at {rows:,} records")
    with engine_env(engine, workdir) as env:
        code, seconds, rss, text = run_child(cmd, cwd=DEMO, env=env,
                                             out=workdir / "build.log")
    log(f"{engine}: {'OK' if code == 0 else 'FAILED'} in {seconds:.1f}s")
    out: dict[str, Any] = {"engine": engine, "rows": rows, "wall": seconds, "code": code,
                           "peak_rss": rss, "nodes": {}, "log": str(workdir / "build.log")}
    if code != 0:
        print(text[-3000:])
        return out
    results = json.loads((workdir / "target" / "run_results.json").read_text())
    for r in results["results"]:
        name = r["unique_id"].split(".")[-1]
        kind = ("python" if r.get("thread_id") == "dbt_deid" or _is_python(r, engine)
                else r["unique_id"].split(".")[0])
        out["nodes"][name] = {"seconds": float(r["execution_time"]), "kind": kind}
    return out


def _is_python(result: dict[str, Any], engine: str) -> bool:
    """On DuckDB dbt runs the Python models itself: their compiled code is Python."""
    code = result.get("compiled_code") or ""
    return engine == "duckdb" and "def model(dbt, session)" in code


def by_kind(run: dict[str, Any]) -> dict[str, float]:
    out: dict[str, float] = {}
    for node in run["nodes"].values():
        out[node["kind"]] = out.get(node["kind"], 0.0) + node["seconds"]
    return out


def report(runs: list[dict[str, Any]], top: int) -> str:
    lines = []
    base = {r["rows"]: r for r in runs if r["engine"] == "duckdb" and r["code"] == 0}
    rows = []
    for r in runs:
        ref = base.get(r["rows"])
        ratio = f"{r['wall'] / ref['wall']:.1f}x" if ref and r["code"] == 0 else "-"
        kinds = by_kind(r)
        rows.append([r["engine"], f"{r['rows']:,}", "ok" if r["code"] == 0 else "FAILED",
                     f"{r['wall']:.1f}", ratio, f"{kinds.get('model', 0):.1f}",
                     f"{kinds.get('python', 0):.1f}", f"{kinds.get('test', 0):.1f}",
                     f"{kinds.get('seed', 0):.1f}", f"{r['peak_rss'] / 2**30:.2f}"])
    lines.append(fmt_table(["engine", "records", "build", "wall s", "vs DuckDB", "SQL models s",
                            "Python models s", "tests s", "seeds s", "peak RSS GiB"], rows))
    for r in runs:
        if r["code"] != 0:
            continue
        ref = base.get(r["rows"])
        nodes = sorted(r["nodes"].items(), key=lambda kv: -kv[1]["seconds"])[:top]
        total = sum(n["seconds"] for n in r["nodes"].values()) or 1.0
        table = []
        for name, node in nodes:
            ref_s = ref["nodes"].get(name, {}).get("seconds") if ref else None
            table.append([name, node["kind"], f"{node['seconds']:.2f}",
                          f"{100 * node['seconds'] / total:.0f}%",
                          f"{ref_s:.2f}" if ref_s is not None else "-",
                          f"{node['seconds'] / ref_s:.1f}x" if ref_s else "-"])
        lines.append(f"\n{r['engine']} at {r['rows']:,} records: the {top} slowest nodes"
                     f" ({len(r['nodes'])} nodes, {total:.1f}s summed)")
        lines.append(fmt_table(["node", "kind", "s", "share", "DuckDB s", "vs DuckDB"], table))
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rows", type=int, default=PAPER_ROWS)
    ap.add_argument("--engines", default=",".join(ENGINES))
    ap.add_argument("--spark-rows", type=int, default=None,
                    help="records for Spark (default --rows); DuckDB also runs at this size")
    ap.add_argument("--top", type=int, default=8, help="slowest nodes shown per engine")
    ap.add_argument("--workdir", type=Path, default=None)
    args = ap.parse_args()
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    unknown = set(engines) - set(ENGINES)
    if unknown:
        raise SystemExit(f"unknown engine(s) {sorted(unknown)}; choose from {ENGINES}")
    if not (DEMO / "dbt_packages").exists():
        subprocess.run([str(Path(sys.executable).parent / "dbt"), "deps", "--profiles-dir",
                        "profiles", "--quiet"], cwd=DEMO, check=True)
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="bench_engines_"))
    plan = [(e, args.spark_rows if e == "spark" and args.spark_rows else args.rows)
            for e in engines]
    if "duckdb" in engines:  # the baseline at every size another engine runs at
        plan += [("duckdb", rows) for _, rows in plan if ("duckdb", rows) not in plan]
    load = os.getloadavg()
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    runs = [build(e, rows, workdir / f"{e}_{rows}") for e, rows in plan]
    print(f"bench_engines {started}; load average at start {load[0]:.1f} / {load[1]:.1f} /"
          f" {load[2]:.1f} on {os.cpu_count()} cores; at end"
          f" {' / '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(report(runs, args.top))
    (workdir / "bench_engines.json").write_text(json.dumps(
        {"started": started, "load_start": load, "load_end": os.getloadavg(), "runs": runs},
        indent=2))
    print(f"\nfigures: {workdir / 'bench_engines.json'}")
    raise SystemExit(0 if all(r["code"] == 0 for r in runs) else 1)


if __name__ == "__main__":
    main()
