"""Time and peak memory of the release's Python models that read the pattern tables (not a test).

Issue 18, item 3: at 24 million records the pattern tables ``deid_patterns`` and
``deid_suppressed_patterns`` hold 8.2 million rows, and the Python models reading them
(``deid_suppression_map``, ``deid_algorithm_comparison``, ``deid_release_report``) set the
build's peak memory. This script runs each model's body (:mod:`dbt_deid.dbt_side.glue`) on the
tables of
a DuckDB database already built by ``bench/bench_scale.py`` (``--workdir``'s
``scale_large.duckdb`` and its target directory ``target_24M``), each in its own child process
reading the database read-only, and prints the wall seconds and the child's peak RSS
(``wait4``'s ``ru_maxrss``). The report is written to a temporary directory. The comparison
body runs on the pattern tables whether or not the built release declared
``report.algorithm_comparison`` (the model is built only then; the report reads its table
through ``deid_report_inputs``).

    .venv/bin/python bench/bench_pattern_models.py [--db PATH] [--target DIR]
        [--models map map_only advice comparison report]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: map: deid_suppression_map's body (the map, then the advice: session 13); map_only: the map
#: alone and advice: deid_release_advice's body on the built map table (the two nodes before
#: session 13), so one run compares the fold with what it replaced.
MODELS = ("map", "map_only", "advice", "comparison", "report")


def child(model: str, db: str, target: str) -> None:
    """Run one model body on the built tables (in this process)."""
    import duckdb

    from dbt_deid.dbt_side.glue import advice, map_model
    from dbt_deid.dbt_side.glue import release as rel
    from dbt_deid.dbt_side.glue import report as rep

    manifest = json.loads((Path(target) / "manifest.json").read_text())
    node = next(n for n in manifest["nodes"].values() if n["name"] == "deid_suppression_map")
    release_json = node["config"]["deid_release_json"]
    con = duckdb.connect(db, read_only=True)
    con.execute("set threads = 2")

    def ref(name: str):
        return con.table(f"main_deid_work.{name}")

    if model == "map":
        # the map and the advice (deid_release_advice before session 13), as the model
        out = map_model.deid_suppression_map(release_json, ref("deid_patterns"),
                                             ref("deid_hierarchy"))
    elif model == "map_only":
        out = rel.suppression_map(ref("deid_patterns"), json.loads(release_json))
    elif model == "advice":
        out = advice.release_advice_rows(release_json, ref("deid_patterns"),
                                         ref("deid_hierarchy"), ref("deid_suppression_map"))
    elif model == "comparison":
        out = rel.deid_algorithm_comparison(release_json, ref("deid_patterns"),
                                            ref("deid_suppressed_patterns"))
    else:
        with tempfile.TemporaryDirectory() as tmp:
            out = rep.deid_release_report(
                release_json, ref("deid_suppressed_patterns"), ref("deid_gate_results"),
                report_inputs=ref("deid_report_inputs"), path=str(Path(tmp) / "report.html"),
                project_dir=tmp)
    print(json.dumps({"rows": len(out)}))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--db", default="/tmp/bscale/scale_large.duckdb")
    ap.add_argument("--target", default="/tmp/bscale/target_24M")
    ap.add_argument("--models", nargs="+", choices=MODELS, default=list(MODELS))
    ap.add_argument("--child", choices=MODELS, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child, args.db, args.target)
        return
    print(f"# pattern-table Python models on {args.db};"
          f" {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())};"
          f" load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print("model        seconds  peak RSS")
    for model in args.models:
        t = time.perf_counter()
        proc = subprocess.Popen([sys.executable, __file__, "--child", model, "--db", args.db,
                                 "--target", args.target], stdout=subprocess.DEVNULL)
        _pid, status, usage = os.wait4(proc.pid, 0)
        if os.waitstatus_to_exitcode(status) != 0:
            raise SystemExit(f"{model} failed")
        print(f"{model:<12} {time.perf_counter() - t:7.1f}  {usage.ru_maxrss / 2**20:.2f} GiB",
              flush=True)


if __name__ == "__main__":
    main()
