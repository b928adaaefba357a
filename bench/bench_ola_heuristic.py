"""The heuristic search beyond the optimal search's budget (issue 36, item 3): not a test.

Input as in ``bench/bench_ola_many_qis.py`` (whose loaders this script reuses): ARX's example
project ``data/example2.deid`` from ARX's source repository (``--example2 PATH`` or the
``ARX_EXAMPLE2`` environment variable; extracted at run time into a temporary directory,
nothing of it is kept), else the synthetic census-like table of the same shape.

k = 5, MaxSup 5%, entropy. Cases, each in its own process (its CPU time and peak RSS are the
case's own):

* 8, 10 and 12 QIs (lattices of 40,320 to 1,975,680 nodes, small enough for the optimal
  search): the optimal search (the released node of ``run_ola``) and the heuristic search
  (``search="heuristic"``, Lightning within ``--heuristic-seconds``) on the same table in the
  same run; printed: both scores, the heuristic's distance from the optimum (target: within
  5%), its own bound on that distance, nodes checked, CPU times and their ratio.
* 30 (every attribute, a lattice of 2.4 x 10^14 nodes): ``run_ola`` with its defaults, which
  switches to the heuristic automatically beyond ``max_nodes``; printed: the node, its score,
  CPU seconds and peak RSS (target: a node within 60 s CPU and 4 GiB).

    nice python bench/bench_ola_heuristic.py [--example2 PATH/example2.deid]
        [--cases 8 10 12 30] [--heuristic-seconds 30] [--heuristic-nodes N]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

from bench_ola_many_qis import case_data

from dbt_deid.ola.budget import SearchBudget
from dbt_deid.ola.run import run_ola

GIB = 2**30
GAP_TARGET = 0.05
CPU_TARGET = 60.0
RSS_TARGET = 4.0


def run_case(name: str, search: str, seconds: float, nodes: int | None,
             example2: Path | None) -> dict:
    c0 = time.process_time()
    qis, records, hierarchies = case_data(name, example2)
    patterns = records.groupby(qis).size().reset_index(name="n")
    t, c = time.perf_counter(), time.process_time()
    r = run_ola(patterns, {q: hierarchies[q] for q in qis}, 5, 0.05, "entropy", search=search,
                budget=SearchBudget(heuristic_seconds=seconds, heuristic_nodes=nodes))
    out = {"case": name, "search": search, "kind": r.search_kind, "qis": len(qis),
           "lattice": r.lattice_size, "node": None if r.chosen is None else list(r.chosen),
           "value": r.metric_value, "suppressed": r.suppressed, "evaluated": r.evaluated,
           "seconds": time.perf_counter() - t, "cpu": time.process_time() - c,
           "cpu_total": time.process_time() - c0,
           "peak_rss_gib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / GIB}
    if r.heuristic is not None:
        out["heuristic"] = r.heuristic_summary()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", nargs="+", default=["8", "10", "12", "30"],
                        choices=["8", "10", "12", "30"])
    parser.add_argument("--heuristic-seconds", type=float, default=30.0)
    parser.add_argument("--heuristic-nodes", type=int, default=None,
                        help="node budget of the heuristic (default none: the time budget"
                             " alone; a node budget gives the same node on any machine)")
    parser.add_argument("--example2", type=Path, default=os.environ.get("ARX_EXAMPLE2"),
                        help="ARX's data/example2.deid (default: $ARX_EXAMPLE2; without it a"
                             " synthetic census-like table)")
    parser.add_argument("--case", help=argparse.SUPPRESS)
    parser.add_argument("--search", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.example2 is not None and not Path(args.example2).is_file():
        parser.error(f"--example2: {args.example2} is not a file")
    if args.case:
        print(json.dumps(run_case(args.case, args.search, args.heuristic_seconds,
                                  args.heuristic_nodes, args.example2)))
        return
    data = ("synthetic census-like table (not ARX's data)" if args.example2 is None
            else f"ARX's example2 census ({args.example2})")
    print(f"{data}, k = 5, MaxSup 5%, entropy, heuristic_seconds = {args.heuristic_seconds:g},"
          f" heuristic_nodes = {args.heuristic_nodes};"
          f" load average {os.getloadavg()[0]:.1f}")
    extra = [] if args.example2 is None else ["--example2", str(args.example2)]
    if args.heuristic_nodes is not None:
        extra += ["--heuristic-nodes", str(args.heuristic_nodes)]

    def one(case: str, search: str) -> dict | None:
        done = subprocess.run(
            [sys.executable, __file__, "--case", case, "--search", search,
             "--heuristic-seconds", str(args.heuristic_seconds), *extra],
            capture_output=True, text=True)
        if done.returncode != 0:
            print(f"{case} QIs, {search}: the process failed: {done.stderr.strip()[-800:]}")
            return None
        return json.loads(done.stdout.strip().splitlines()[-1])

    verdicts = []
    for case in args.cases:
        if case == "30":
            x = one(case, "paths")
            if x is None:
                continue
            h = x.get("heuristic") or {}
            bound = "-" if h.get("gap_bound") is None else f"{h['gap_bound']:.1%}"
            ok = (x["node"] is not None and x["cpu_total"] <= CPU_TARGET
                  and x["peak_rss_gib"] <= RSS_TARGET)
            print(f"30 QIs: lattice {x['lattice']:,} nodes, search {x['kind']}; node"
                  f" {tuple(x['node'] or ())}, suppressed {x['suppressed']}, entropy"
                  f" {x['value']:.6g}; {h.get('nodes_checked', 0):,} nodes checked, stopped:"
                  f" {h.get('stopped')}, proved bound on the distance from the optimum"
                  f" {bound};"
                  f" search {x['seconds']:.1f} s wall / {x['cpu']:.1f} s CPU, whole process"
                  f" {x['cpu_total']:.1f} s CPU, peak {x['peak_rss_gib']:.2f} GiB")
            verdicts.append(f"  30 QIs: a node within {CPU_TARGET:g} s CPU and {RSS_TARGET:g}"
                            f" GiB: {x['cpu_total']:.1f} s, {x['peak_rss_gib']:.2f} GiB"
                            f" {'met' if ok else 'MISSED'}")
            continue
        opt = one(case, "paths")
        heu = one(case, "heuristic")
        if opt is None or heu is None:
            continue
        h = heu["heuristic"]
        gap = heu["value"] / opt["value"] - 1 if opt["value"] else float("nan")
        own = "-" if h["gap_bound"] is None else f"{h['gap_bound']:.1%}"
        print(f"{case} QIs: lattice {opt['lattice']:,}; optimal node {tuple(opt['node'])}"
              f" entropy {opt['value']:.6g} ({opt['evaluated']:,} evaluated, {opt['cpu']:.1f} s"
              f" CPU); heuristic node {tuple(heu['node'])} entropy {heu['value']:.6g}"
              f" ({h['nodes_checked']:,} checked, stopped: {h['stopped']},"
              f" proved optimal: {h['proved_optimal']}, {heu['cpu']:.1f} s CPU,"
              f" {heu['seconds']:.1f} s wall); distance from the optimum {gap:+.2%}"
              f" (its own bound {own}); CPU ratio heuristic / optimal"
              f" {heu['cpu'] / max(opt['cpu'], 1e-9):.2f}")
        verdicts.append(f"  {case} QIs: heuristic within {GAP_TARGET:.0%} of the optimum:"
                        f" {gap:+.2%} {'met' if gap <= GAP_TARGET else 'MISSED'}")
    print("targets:")
    print("\n".join(verdicts))


if __name__ == "__main__":
    main()
