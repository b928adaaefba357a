"""Benchmark of OLA (``dbt_deid.ola``): not a test.

Adult (k = 5 and 20; MaxSup 0%, 1%, 5%, 100%; every metric) and a synthetic 1.2-million-record
table shaped like a health interview survey (8 QIs, k = 5). For each run: the released node,
suppressed records, metric value, the paper's choice (best k-minimal node) when it differs,
nodes evaluated / lattice size and the search time (wall-clock time of ``run_ola`` on the
pattern table: encoding + search + metrics; CPU time too, because the machine may be shared),
with its ratio to a baseline measured in the same run (one pandas groupby of the records on all
QIs, i.e. what building the pattern table costs).

``--before REF`` runs the same cases with the library of an earlier commit (``git archive REF
src`` into a temporary directory, run in a subprocess with its own baseline) and prints before /
after side by side: times as ratios to each run's baseline, and the nodes and scores, so a
release that changed shows up.

    .venv/bin/python bench/bench_ola.py [--adult DIR] [--rows 1200000] [--skip-adult]
        [--skip-synthetic] [--before REF] [--metrics entropy loss ...]
        [--max-suppression 0 0.01 ...] [--repeat 3]

Targets: Adult k=5 MaxSup 5% entropy <= 1 s; MaxSup 0% <= 0.2 s; 1.2M rows k=5 <= 10 s.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

import pandas as pd

from dbt_deid.ola import METRICS, load_hierarchies, run_ola
from dbt_deid.tools.synthetic.tables import health_survey_records, survey_hierarchies

REPO = Path(__file__).resolve().parents[1]
ADULT = REPO.parent / "shared" / "data" / "adult"
ADULT_QIS = ["sex", "age", "race", "marital-status", "education", "native-country",
             "workclass", "occupation", "salary-class"]


def _best_of(fn, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def _timed(fn, repeat: int) -> tuple[object, float, float]:
    """Best wall time and the CPU time of that run."""
    best, cpu_best, out = float("inf"), 0.0, None
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        out = fn()
        wall, cpu = time.perf_counter() - t, time.process_time() - c
        if wall < best:
            best, cpu_best = wall, cpu
    return out, best, cpu_best


def _record(case: str, r, seconds: float, cpu: float, baseline: float) -> dict:
    """One case as plain data (works with the library of earlier commits too)."""
    best_kmin = getattr(r, "best_k_minimal", None)
    return {
        "case": case, "node": None if r.chosen is None else list(r.chosen),
        "suppressed": r.suppressed, "value": r.metric_value,
        "best_k_minimal": None if best_kmin is None else list(best_kmin),
        "evaluated": r.evaluated, "lattice": r.lattice_size, "k_minimal": len(r.k_minimal),
        "seconds": seconds, "cpu": cpu, "ratio": seconds / baseline,
    }


def bench_adult(directory: Path, metrics: list[str], repeat: int, sups: list[float]
                ) -> tuple[float, list[dict]]:
    frame = pd.read_csv(directory / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    hierarchies = load_hierarchies(
        {c: directory / f"adult_hierarchy_{c}.csv" for c in ADULT_QIS})
    baseline = _best_of(lambda: frame.groupby(ADULT_QIS).size())
    patterns = frame.groupby(ADULT_QIS).size().reset_index(name="n")
    out = []
    for k in (5, 20):
        for sup in sups:
            for metric in metrics:
                r, seconds, cpu = _timed(
                    lambda k=k, sup=sup, metric=metric: run_ola(patterns, hierarchies, k, sup,
                                                                metric), repeat)
                out.append(_record(f"adult k={k} maxsup={sup:.0%} {metric}", r, seconds, cpu,
                                   baseline))
    return baseline, out


def bench_survey(rows: int) -> tuple[float, list[dict]]:
    records = health_survey_records(rows, seed=0)
    qis = list(records.columns)
    baseline = _best_of(lambda: records.groupby(qis).size(), repeat=1)
    patterns = records.groupby(qis).size().reset_index(name="n")
    for c in qis:
        patterns[c] = patterns[c].astype(str)
    hierarchies = survey_hierarchies()
    out = []
    for sup in (0.0, 0.05):
        r, seconds, cpu = _timed(lambda sup=sup: run_ola(patterns, hierarchies, 5, sup,
                                                         "entropy"), 1)
        out.append(_record(f"survey {rows} k=5 maxsup={sup:.0%} entropy", r, seconds, cpu,
                           baseline))
    return baseline, out


def measure(args: argparse.Namespace) -> dict:
    result = {"adult_baseline": None, "survey_baseline": None, "cases": []}
    if not args.skip_adult and (args.adult / "adult.csv").exists():
        result["adult_baseline"], cases = bench_adult(args.adult, args.metrics, args.repeat,
                                                      args.max_suppression)
        result["cases"] += cases
    if not args.skip_synthetic:
        result["survey_baseline"], cases = bench_survey(args.rows)
        result["cases"] += cases
    return result


def run_before(ref: str, argv: list[str]) -> dict:
    """The same cases with the library of commit ``ref`` (a subprocess on its ``src``)."""
    archive = subprocess.run(["git", "-C", str(REPO), "archive", ref, "src"],
                             capture_output=True, check=True).stdout
    with tempfile.TemporaryDirectory() as tmp:
        with tarfile.open(fileobj=BytesIO(archive)) as tar:
            tar.extractall(tmp, filter="data")
        env = {**os.environ, "PYTHONPATH": str(Path(tmp) / "src")}
        done = subprocess.run([sys.executable, __file__, *argv, "--json"], env=env,
                              capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _node(x: dict) -> str:
    return "none" if x["node"] is None else ",".join(map(str, x["node"]))


def _line(x: dict) -> str:
    value = "-" if x["value"] is None else f"{x['value']:.6g}"
    paper = ("" if x["best_k_minimal"] in (None, x["node"])
             else f" best_k_minimal=({','.join(map(str, x['best_k_minimal']))})")
    return (f"{x['case']:<36} node=({_node(x)}) suppressed={x['suppressed']} value={value}"
            f"{paper} evaluated={x['evaluated']}/{x['lattice']} k_minimal={x['k_minimal']}"
            f" time={x['seconds']:.3f}s cpu={x['cpu']:.3f}s ratio={x['ratio']:.1f}x")


def report(after: dict, before: dict | None) -> None:
    for key, label in (("adult_baseline", "Adult"), ("survey_baseline", "survey")):
        if after[key] is not None:
            extra = "" if before is None or before[key] is None else (
                f" (before-run baseline {before[key] * 1000:.1f} ms)")
            print(f"{label}: baseline (groupby of the records) {after[key] * 1000:.1f} ms{extra}")
    for x in after["cases"]:
        print(_line(x))
    if before is not None:
        print("\nbefore / after (wall time as ratio to its own run's baseline, speed-up of the"
              " wall and CPU times; node, score):")
        old = {x["case"]: x for x in before["cases"]}
        for x in after["cases"]:
            b = old.get(x["case"])
            if b is None:
                continue
            same = b["node"] == x["node"]
            score = "" if same or b["value"] is None or x["value"] is None else (
                f" score {b['value']:.6g} -> {x['value']:.6g}")
            print(f"  {x['case']:<36} {b['ratio']:7.1f}x -> {x['ratio']:7.1f}x"
                  f" ({b['ratio'] / x['ratio']:.2f}x, CPU {b['cpu'] / x['cpu']:.2f}x) node"
                  f" ({_node(b)})"
                  f"{' same' if same else f' -> ({_node(x)})'}{score}")
    checks = []
    for x in after["cases"]:
        if x["case"] in ("adult k=5 maxsup=0% entropy", "adult k=5 maxsup=5% entropy"):
            checks.append((x["case"], x["seconds"], 0.2 if "=0%" in x["case"] else 1.0))
        elif x["case"].startswith("survey"):
            checks.append((x["case"], x["seconds"], 10.0))
    print("targets:")
    for label, seconds, target in checks:
        print(f"  {label:<40} {seconds:.3f}s (target <= {target}s)"
              f" {'met' if seconds <= target else 'MISSED'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adult", type=Path, default=ADULT)
    parser.add_argument("--rows", type=int, default=1_200_000)
    parser.add_argument("--skip-adult", action="store_true")
    parser.add_argument("--skip-synthetic", action="store_true")
    parser.add_argument("--metrics", nargs="+", default=list(METRICS), choices=METRICS)
    parser.add_argument("--repeat", type=int, default=3, help="Adult runs per case (best)")
    parser.add_argument("--max-suppression", type=float, nargs="+",
                        default=[0.0, 0.01, 0.05, 1.0], help="Adult MaxSup cells")
    parser.add_argument("--before", metavar="REF", help="also run the library of commit REF")
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.adult = args.adult.resolve()
    if args.json:
        print(json.dumps(measure(args)))
        return
    if not args.skip_adult and not (args.adult / "adult.csv").exists():
        print(f"Adult not found at {args.adult}: skipped")
    argv = [a for a in sys.argv[1:] if a != "--before" and a != args.before]
    before = run_before(args.before, argv) if args.before else None
    report(measure(args), before)


if __name__ == "__main__":
    main()
