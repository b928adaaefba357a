"""Whole-process CPU of ``python -m dbt_deid ola`` against ARX 3.9.2 on one CSV file: not a test.

Issue 35 (item 5, acceptance): on Adult (the shared extract, 9 QIs with ARX's own hierarchies)
replicated to ``--rows`` records (default 3,000,000), k = 5, MaxSup 0, the ``ola`` command's
whole process (interpreter start, imports, CSV read, grouping, search, output) must take at
most 1.5x the CPU of ARX's whole process (JVM start, ``Data.create`` reading the same CSV file,
the hierarchies, ``ARXAnonymizer.anonymize``), with the same search result.

Both run as a user would, each in a fresh process, alternating ``--repeat`` times; CPU is user +
system time of the child (``resource.getrusage(RUSAGE_CHILDREN)``), so the JIT and garbage
collector threads of the JVM and every thread of ours count. The script prints each run, the
medians, the ratio ours / ARX, and both chosen nodes (levels in the QI order below; ARX's
entropy metric is its non-monotonic non-uniform entropy, ours the same at MaxSup 0, where no
record is suppressed: docs/ola.md). The machine may be shared: only the ratio of one run is a
figure. ``--pandas-baseline`` also times ``pandas.read_csv`` of the file (whole process).

ARX is not part of this repository and is not fetched: ``ARX_JAR`` (or ``--arx-jar``) is an ARX
library jar with its dependencies, built as bench/bench_arx_compare.py's docstring says; the
driver is bench_arx_compare's (ARX's public API). Without a jar, java or javac the script says
that it skipped and why, and exits 0; ``--ours-only`` measures our command alone.

    ARX_JAR=/path/libarx-3.9.2.jar .venv/bin/python bench/bench_arx_cli.py [--rows 3000000]
        [--k 5] [--max-suppression 0] [--metric entropy] [--repeat 1] [--ours-only]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_arx_compare import prepare_driver  # noqa: E402
from bench_cli_ola import ADULT, QIS, _run, _write_input  # noqa: E402


def _ours(stdout: str) -> list[int] | None:
    """Our chosen node's levels in the QI order (the JSON's ``chosen``: QI -> level)."""
    chosen = json.loads(stdout).get("chosen")
    return None if chosen is None else [int(chosen[q]) for q in QIS]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--arx-jar", type=Path, default=os.environ.get("ARX_JAR"))
    ap.add_argument("--adult", type=Path, default=ADULT)
    ap.add_argument("--rows", type=int, default=3_000_000)
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--max-suppression", type=float, default=0.0)
    ap.add_argument("--metric", default="entropy")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--ours-only", action="store_true")
    ap.add_argument("--pandas-baseline", action="store_true")
    args = ap.parse_args()
    java, javac = shutil.which("java"), shutil.which("javac")
    if not (args.adult / "adult.csv").exists():
        print(f"bench_arx_cli: skipped: no Adult data at {args.adult}")
        return
    if not args.ours_only:
        why = ("no ARX library jar (ARX_JAR or --arx-jar)" if args.arx_jar is None
               else f"ARX jar {args.arx_jar} does not exist" if not args.arx_jar.is_file()
               else "java and javac must be on the PATH" if not (java and javac) else None)
        if why:
            print(f"bench_arx_cli: skipped: {why}; --ours-only measures our command alone")
            return
    print(f"bench_arx_cli {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load"
          f" {os.getloadavg()[0]:.1f}; {args.rows:,} records, {len(QIS)} QIs, k = {args.k},"
          f" MaxSup = {args.max_suppression:g}, metric {args.metric}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        data = work / "adult_replicated.csv"
        _write_input(args.adult, args.rows, data)
        pattern = str(args.adult / "adult_hierarchy_{qi}.csv")
        ours_cmd = [sys.executable, "-m", "dbt_deid", "ola", "--input", str(data),
                    "--delimiter", ";", "--k", str(args.k), "--max-suppression",
                    str(args.max_suppression), "--metric", args.metric]
        for q in QIS:
            ours_cmd += ["--hierarchy", f"{q}={pattern.replace('{qi}', q)}"]
        cmds = {"ours": ours_cmd}
        if not args.ours_only:
            prepare_driver(args.arx_jar, javac, work)
            cp = os.pathsep.join([str(work), str(args.arx_jar)])
            # repeat 0: one anonymization in the process (the driver's warm-up run, untimed)
            cmds["ARX"] = [java, "-Xmx6g", "-cp", cp, "DbtDeidArxDriver", str(data), pattern,
                           ",".join(QIS), str(args.k), repr(args.max_suppression), args.metric,
                           "0", "-"]
        if args.pandas_baseline:
            cmds["pandas.read_csv"] = [
                sys.executable, "-c", "import sys, pandas as pd; pd.read_csv(sys.argv[1],"
                " sep=';', dtype=str, keep_default_na=False)", str(data)]
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
        cpu: dict[str, list[float]] = {name: [] for name in cmds}
        nodes: dict[str, list[int] | None] = {}
        for i in range(args.repeat):
            for name, cmd in cmds.items():
                c, w, out = _run(cmd, env)
                cpu[name].append(c)
                if name == "ours":
                    nodes[name] = _ours(out)
                elif name == "ARX":
                    nodes[name] = json.loads(out.strip().splitlines()[-1])["arx"]["levels"] or None
                print(f"run {i + 1} {name:>15}: CPU {c:7.2f} s  wall {w:7.2f} s", flush=True)
    med = {name: statistics.median(v) for name, v in cpu.items()}
    print(f"median of {args.repeat}, whole-process CPU (user + system):")
    for name, value in med.items():
        print(f"  {name:>15}: {value:7.2f} s")
    print(f"  ours chosen node: {nodes.get('ours')} (QIs {', '.join(QIS)})")
    if "ARX" in med:
        print(f"  ARX chosen node:  {nodes.get('ARX')}")
        print(f"  same node: {nodes.get('ours') == nodes.get('ARX')}")
        print(f"  CPU ours / ARX: {med['ours'] / med['ARX']:.2f} (target <= 1.5)")


if __name__ == "__main__":
    main()
