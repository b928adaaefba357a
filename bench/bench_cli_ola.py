"""Benchmark of the ``python -m dbt_deid ola`` command, whole process: not a test.

Issue 35 (item 5): the command read the CSV cell by cell with the csv module into a frame of
Python strings and handed OLA the records; it now reads the QI columns with pyarrow and groups
them into the pattern table first (:mod:`dbt_deid.tools.pattern_csv`). This script writes Adult
(the shared extract, 9 QIs with ARX's hierarchies) replicated to ``--rows`` records (default
3,000,000) to a temporary CSV file, then runs the command as a user would, in a fresh process,
once with the library of ``--before`` (default: the commit this branch started from; ``git
archive REF src`` into a temporary directory, put first on ``PYTHONPATH``) and once with this
working tree's, alternating ``--repeat`` times. It prints each run's whole-process CPU time
(user + system of the child, ``resource.getrusage``), and wall time, the ratio
after / before of the medians (the machine may be shared: only the ratio of one run is a
figure), a baseline measured in the same run (``pandas.read_csv`` of the file, whole process),
and checks that both commands print the same search result (every JSON field but the timing).

    .venv/bin/python bench/bench_cli_ola.py [--adult DIR] [--rows 3000000] [--k 5]
        [--max-suppression 0] [--before REF] [--repeat 1]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]
#: the shared Adult extract next to the clone (or next to the folder of worktrees)
ADULT = next((p / "shared" / "data" / "adult" for p in (REPO.parent, REPO.parent.parent)
              if (p / "shared" / "data" / "adult").is_dir()), REPO.parent / "shared" / "data"
             / "adult")
QIS = ["sex", "age", "race", "marital-status", "education", "native-country", "workclass",
       "occupation", "salary-class"]
BASE = "732cd92"


def _write_input(adult: Path, rows: int, out: Path) -> None:
    frame = pd.read_csv(adult / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    reps = -(-rows // len(frame))
    pd.concat([frame] * reps, ignore_index=True).iloc[:rows].to_csv(out, sep=";", index=False)


def _library(ref: str, into: Path) -> Path:
    data = subprocess.run(["git", "-C", str(REPO), "archive", ref, "src"], check=True,
                          capture_output=True).stdout
    with tarfile.open(fileobj=BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def _run(cmd: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """(CPU s, wall s, stdout) of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd[:4])} failed: {proc.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, proc.stdout


def _result(stdout: str) -> dict:
    out = json.loads(stdout)
    for key in ("seconds", "combinations", "judged_by"):  # timing; fields added by the change
        out.pop(key, None)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--adult", type=Path, default=ADULT)
    ap.add_argument("--rows", type=int, default=3_000_000)
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--max-suppression", type=float, default=0.0)
    ap.add_argument("--before", default=BASE)
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    if not (args.adult / "adult.csv").exists():
        print(f"skipped: no Adult data at {args.adult}")
        return
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        data = tmp_path / "adult_replicated.csv"
        _write_input(args.adult, args.rows, data)
        old_src = _library(args.before, tmp_path / "before")
        ola = [sys.executable, "-m", "dbt_deid", "ola", "--input", str(data), "--delimiter", ";",
               "--k", str(args.k), "--max-suppression", str(args.max_suppression)]
        for q in QIS:
            ola += ["--hierarchy", f"{q}={args.adult / f'adult_hierarchy_{q}.csv'}"]
        envs = {"before": {**os.environ, "PYTHONPATH": str(old_src)},
                "after": {**os.environ, "PYTHONPATH": str(REPO / "src")}}
        baseline_cmd = [sys.executable, "-c",
                        "import sys, pandas as pd; pd.read_csv(sys.argv[1], sep=';', dtype=str,"
                        " keep_default_na=False)", str(data)]
        cpu: dict[str, list[float]] = {"before": [], "after": [], "pandas.read_csv": []}
        walls: dict[str, list[float]] = {k: [] for k in cpu}
        results: dict[str, dict] = {}
        for i in range(args.repeat):
            for name in ("before", "after"):
                c, w, out = _run(ola, envs[name])
                cpu[name].append(c)
                walls[name].append(w)
                results[name] = _result(out)
                print(f"run {i + 1} {name:>6}: CPU {c:7.2f} s  wall {w:7.2f} s", flush=True)
            c, w, _ = _run(baseline_cmd, envs["after"])
            cpu["pandas.read_csv"].append(c)
            walls["pandas.read_csv"].append(w)
        med = {k: statistics.median(v) for k, v in cpu.items()}
        print(f"\n{args.rows:,} records, 9 QIs, k = {args.k}, MaxSup = {args.max_suppression:g};"
              f" before = {args.before}, after = working tree; median of {args.repeat}")
        for name, value in med.items():
            print(f"  {name:>16}: whole-process CPU {value:7.2f} s"
                  f" ({value / med['pandas.read_csv']:.2f}x pandas.read_csv of the file)")
        print(f"  after / before CPU: {med['after'] / med['before']:.3f}")
        same = results["before"] == results["after"]
        print(f"  search result unchanged: {same}"
              f" (chosen {results['after'].get('chosen')})")
        if not same:
            raise SystemExit("the search result changed")


if __name__ == "__main__":
    main()
