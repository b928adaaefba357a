"""OLA with many quasi-identifiers (issue 18, item 4): not a test.

ARX's example census (68,725 records, 30 attributes with ARX's hierarchies) cannot be fetched
here, so this script draws a **synthetic** census-like table of the same size and width
(:func:`dbt_deid.synthetic.tables.census_records`: 30 attributes named after the American
Community Survey PUMS variables it imitates - age, citizenship, class of worker, disability,
health-insurance and marital-history flags, interest income INTP, person weight PWGTP,
relationship, schooling, sex - with hierarchies of 2 to 7 levels; random values, no survey
record) and runs OLA at k = 5, MaxSup 5%, entropy on:

* 8 QIs (34,560 nodes), 10 QIs with income and weight (1,693,440 nodes), 12 QIs (552,960 nodes)
  - the search must end with the k-minimal nodes and the optimal node;
* all 30 attributes (about 4 x 10^12 nodes) - the search must end with a clear error naming
  ``max_nodes`` before any node is evaluated, within the time budget and under 8 GiB.

Each case runs in its own process (its peak RSS is the case's) with the budget
``--max-seconds`` (default 300). Printed per case: lattice size, nodes evaluated (k-minimal
search + optimum search), k-minimal nodes, passing nodes, released node and whether it is
k-minimal, wall and CPU time, peak RSS, and the time of the baseline measured in the same run
(one pandas groupby of the records on the case's QIs) with the ratio to it.

    .venv/bin/python bench/bench_ola_many_qis.py [--cases 8 10 12 30] [--max-seconds 300]

Targets (issue 18): 12 QIs <= 30 s, 10 QIs <= 60 s, 30 attributes: clear error within the
budget and < 8 GiB.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

from dbt_deid.ola.budget import SearchBudget, SearchBudgetError
from dbt_deid.ola.run import run_ola
from dbt_deid.synthetic.tables import CENSUS_ATTRIBUTES, census_hierarchies, census_records

BASE = ["AGEP", "CIT", "COW", "MAR", "SCHL", "RELP", "SEX", "SCHG"]
CASES = {
    "8": BASE,
    "10": [*BASE, "INTP", "PWGTP"],
    "12": [*BASE, "DEAR", "DEYE", "HINS1", "HINS3"],
    "30": list(CENSUS_ATTRIBUTES),
}
TARGETS = {"12": 30.0, "10": 60.0}
GIB = 2**30


def run_case(name: str, max_seconds: float) -> dict:
    qis = CASES[name]
    records = census_records()
    hierarchies = census_hierarchies()
    t = time.perf_counter()
    patterns = records.groupby(qis).size().reset_index(name="n")
    baseline = time.perf_counter() - t
    out: dict = {"case": name, "qis": len(qis), "records": len(records),
                 "patterns": len(patterns), "baseline": baseline}
    budget = SearchBudget(max_seconds=max_seconds)
    t, c = time.perf_counter(), time.process_time()
    try:
        r = run_ola(patterns, {q: hierarchies[q] for q in qis}, 5, 0.05, "entropy",
                    budget=budget)
        out.update(
            lattice=r.lattice_size, evaluated=r.evaluated, optimum_evaluated=r.optimum_evaluated,
            k_minimal=len(r.k_minimal), passing=r.passing_nodes,
            node=None if r.chosen is None else list(r.chosen), value=r.metric_value,
            suppressed=r.suppressed, chosen_is_k_minimal=r.chosen_is_k_minimal)
    except SearchBudgetError as exc:
        out["error"] = str(exc)
    out["seconds"] = time.perf_counter() - t
    out["cpu"] = time.process_time() - c
    out["peak_rss_gib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / GIB
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", nargs="+", default=["8", "10", "12", "30"], choices=CASES)
    parser.add_argument("--max-seconds", type=float, default=300.0)
    parser.add_argument("--case", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case:
        print(json.dumps(run_case(args.case, args.max_seconds)))
        return
    print("synthetic census-like table (68,725 records, 30 attributes; not ARX's example data),"
          f" k = 5, MaxSup 5%, entropy, max_seconds = {args.max_seconds:g}")
    results = []
    for name in args.cases:
        done = subprocess.run([sys.executable, __file__, "--case", name, "--max-seconds",
                               str(args.max_seconds)], capture_output=True, text=True)
        if done.returncode != 0:
            print(f"{name} QIs: the process failed: {done.stderr.strip()[-500:]}")
            continue
        x = json.loads(done.stdout.strip().splitlines()[-1])
        results.append(x)
        head = (f"{x['qis']} QIs: {x['patterns']:,} patterns, baseline groupby"
                f" {x['baseline'] * 1000:.0f} ms;")
        if "error" in x:
            print(f"{head} ended with an error after {x['seconds']:.2f} s, peak"
                  f" {x['peak_rss_gib']:.2f} GiB:\n    {x['error']}")
            continue
        print(f"{head} lattice {x['lattice']:,} nodes, {x['evaluated']:,} evaluated"
              f" ({x['optimum_evaluated']:,} by the optimum search), {x['k_minimal']:,}"
              f" k-minimal, {x['passing']:,} passing; node {tuple(x['node'])}"
              f"{'' if x['chosen_is_k_minimal'] else ' (not k-minimal)'}, suppressed"
              f" {x['suppressed']}, entropy {x['value']:.6g}; {x['seconds']:.1f} s wall,"
              f" {x['cpu']:.1f} s CPU ({x['seconds'] / x['baseline']:.0f}x the baseline), peak"
              f" {x['peak_rss_gib']:.2f} GiB")
    print("targets:")
    for x in results:
        if x["case"] in TARGETS:
            ok = "error" not in x and x["seconds"] <= TARGETS[x["case"]]
            print(f"  {x['qis']} QIs <= {TARGETS[x['case']]:g} s: {x['seconds']:.1f} s wall"
                  f" ({x['cpu']:.1f} s CPU) {'met' if ok else 'MISSED'}")
        elif x["case"] == "30":
            ok = ("error" in x and "max_nodes" in x["error"] and x["peak_rss_gib"] < 8
                  and x["seconds"] <= args.max_seconds)
            print(f"  30 attributes: clear error within the budget and < 8 GiB:"
                  f" {x['seconds']:.2f} s, {x['peak_rss_gib']:.2f} GiB {'met' if ok else 'MISSED'}")


if __name__ == "__main__":
    main()
