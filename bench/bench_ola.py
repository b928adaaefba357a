"""Benchmark of OLA (``dbt_deid.ola``): not a test.

Adult (k = 5 and 20; MaxSup 0%, 1%, 5%, 100%; every metric) and a synthetic 1.2-million-record
table shaped like a health interview survey (8 QIs, k = 5). For each run: the chosen node,
suppressed records, metric value, nodes evaluated / lattice size and the search time, with its
ratio to a baseline measured in the same run (one pandas groupby of the records on all QIs,
i.e. what building the pattern table costs). The search time is wall-clock time of ``run_ola``
on the pattern table (encoding + search + metrics); CPU time is printed too because the machine
may be shared.

    .venv/bin/python bench/bench_ola.py [--adult DIR] [--rows 1200000] [--skip-adult]
        [--skip-synthetic]

Targets: Adult k=5 MaxSup 5% entropy <= 1 s; MaxSup 0% <= 0.2 s; 1.2M rows k=5 <= 10 s.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import pandas as pd

from dbt_deid.ola import METRICS, load_hierarchies, run_ola
from dbt_deid.ola.synthetic import health_survey_records, survey_hierarchies

REPO = Path(__file__).resolve().parents[1]
ADULT = REPO / ".." / "shared" / "data" / "adult"
ADULT_QIS = ["sex", "age", "race", "marital-status", "education", "native-country",
             "workclass", "occupation", "salary-class"]


def _best_of(fn, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def _line(label: str, r, seconds: float, baseline: float, cpu: float) -> str:
    value = "-" if r.metric_value is None else f"{r.metric_value:.6g}"
    node = "none" if r.chosen is None else ",".join(map(str, r.chosen))
    return (f"{label:<34} node=({node}) suppressed={r.suppressed} value={value}"
            f" evaluated={r.evaluated}/{r.lattice_size} k_minimal={len(r.k_minimal)}"
            f" time={seconds:.3f}s cpu={cpu:.3f}s ratio={seconds / baseline:.1f}x")


def bench_adult(directory: Path) -> list[tuple[str, float, float]]:
    if not (directory / "adult.csv").exists():
        print(f"Adult not found at {directory}: skipped")
        return []
    frame = pd.read_csv(directory / "adult.csv", sep=";", dtype=str, keep_default_na=False)
    hierarchies = load_hierarchies(
        {c: directory / f"adult_hierarchy_{c}.csv" for c in ADULT_QIS})
    baseline = _best_of(lambda: frame.groupby(ADULT_QIS).size())
    patterns = frame.groupby(ADULT_QIS).size().reset_index(name="n")
    print(f"Adult: {len(frame)} records, {len(patterns)} patterns;"
          f" baseline (groupby of the records) {baseline * 1000:.1f} ms")
    checks = []
    for k in (5, 20):
        for sup in (0.0, 0.01, 0.05, 1.0):
            for metric in METRICS:
                t, c = time.perf_counter(), time.process_time()
                r = run_ola(patterns, hierarchies, k, sup, metric)
                seconds, cpu = time.perf_counter() - t, time.process_time() - c
                print(_line(f"adult k={k} maxsup={sup:.0%} {metric}", r, seconds, baseline, cpu))
                if k == 5 and metric == "entropy" and sup in (0.0, 0.05):
                    checks.append((f"Adult k=5 MaxSup {sup:.0%} entropy", seconds,
                                   1.0 if sup else 0.2))
    return checks


def bench_survey(rows: int) -> list[tuple[str, float, float]]:
    t = time.perf_counter()
    records = health_survey_records(rows, seed=0)
    generated = time.perf_counter() - t
    qis = list(records.columns)
    baseline = _best_of(lambda: records.groupby(qis).size(), repeat=1)
    patterns = records.groupby(qis).size().reset_index(name="n")
    for c in qis:
        patterns[c] = patterns[c].astype(str)
    hierarchies = survey_hierarchies()
    print(f"survey: {rows} records, {len(patterns)} patterns, 8 QIs (generated in"
          f" {generated:.1f}s); baseline (groupby of the records) {baseline * 1000:.0f} ms")
    checks = []
    for sup in (0.0, 0.05):
        t, c = time.perf_counter(), time.process_time()
        r = run_ola(patterns, hierarchies, 5, sup, "entropy")
        seconds, cpu = time.perf_counter() - t, time.process_time() - c
        print(_line(f"survey k=5 maxsup={sup:.0%} entropy", r, seconds, baseline, cpu))
        checks.append((f"survey {rows} rows k=5 MaxSup {sup:.0%}", seconds, 10.0))
    return checks


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--adult", type=Path, default=ADULT)
    parser.add_argument("--rows", type=int, default=1_200_000)
    parser.add_argument("--skip-adult", action="store_true")
    parser.add_argument("--skip-synthetic", action="store_true")
    args = parser.parse_args()
    checks = []
    if not args.skip_adult:
        checks += bench_adult(args.adult.resolve())
    if not args.skip_synthetic:
        checks += bench_survey(args.rows)
    print("targets:")
    for label, seconds, target in checks:
        print(f"  {label:<40} {seconds:.3f}s (target <= {target}s)"
              f" {'met' if seconds <= target else 'MISSED'}")


if __name__ == "__main__":
    main()
