"""Benchmark of LOLA (seed 001) on synthetic HHP-like claims; not a test.

Measures, at the chosen scale (default: the paper's 113,000 patients / 2,668,990 claims, B =
10,000, I = 1,000): data generation and preprocessing, per-node bootstrap evaluation (bottom,
middle and top node), the whole OLA search (with the paper's MaxSup = 0.8%, and with a MaxSup
that makes the search visit the lattice), the simulated attack 1, and the process's peak
resident memory. Times are also printed as ratios to a baseline measured in the same run: one
pandas groupby aggregation over the released claims.

Targets: one node <= 5 s, whole search <= 5 min, peak <= 6 GiB (2-core machine).

    .venv/bin/python bench/bench_lola.py [--patients 113000] [--bootstrap 10000]
        [--iterations 1000] [--attack-iterations 10000] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import resource
import secrets
import sys
import time

import numpy as np

from dbt_deid.longitudinal.attack import simulate_attack1
from dbt_deid.longitudinal.bootstrap import (
    NodeEvaluator,
    k_for_sample,
    max_sup_from_risk_exposure,
    power_matrix,
)
from dbt_deid.longitudinal.encoding import encode
from dbt_deid.longitudinal.generator import FULL_SCALE_PATIENTS, generate_hhp
from dbt_deid.longitudinal.hierarchies import default_hierarchies
from dbt_deid.longitudinal.preprocess import preprocess
from dbt_deid.longitudinal.search import lola_search

GIB = 1024**3


def peak_rss_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--patients", type=int, default=FULL_SCALE_PATIENTS)
    ap.add_argument("--bootstrap", type=int, default=10_000)
    ap.add_argument("--iterations", type=int, default=1_000)
    ap.add_argument("--attack-iterations", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--tau", type=float, default=0.05)
    ap.add_argument("--alpha", type=float, default=0.2)
    args = ap.parse_args(argv)
    out: dict[str, object] = {"patients": args.patients, "bootstrap": args.bootstrap,
                              "iterations": args.iterations}
    t = time.perf_counter()
    data = generate_hhp(args.patients, args.seed)
    out["generate_s"] = time.perf_counter() - t
    env = {"BENCH_KEY": secrets.token_hex(32)}
    t = time.perf_counter()
    pre = preprocess(data, key_env="BENCH_KEY", environ=env)
    out["preprocess_s"] = time.perf_counter() - t
    del data, env
    out["claims_d1"], out["claims_released"] = len(pre.claims_all), len(pre.claims)

    t = time.perf_counter()
    pre.claims.groupby("member_id", sort=False).agg(
        n=("claim_id", "size"), los=("los", "sum"), dsfc=("dsfc", "max"))
    baseline = time.perf_counter() - t
    out["baseline_groupby_s"] = baseline

    t = time.perf_counter()
    d1 = encode(pre.patients, pre.claims_all, default_hierarchies())
    d2 = d1.subset_claims(np.isin(d1.claim_ids, pre.claims["claim_id"].to_numpy()))
    p2 = power_matrix(d2, None, pre.claims)
    p1 = power_matrix(d1, None, pre.claims_all)
    out["encode_and_power_s"] = time.perf_counter() - t
    k = k_for_sample(args.tau, args.alpha)
    ms = max_sup_from_risk_exposure(args.tau)
    out["k"], out["max_sup"] = k, ms

    t = time.perf_counter()
    ev = NodeEvaluator(d2, p2, k=k, max_sup=ms, n_bootstrap=args.bootstrap,
                       n_iterations=args.iterations, seed=args.seed)
    out["draw_pool_s"] = time.perf_counter() - t
    heights = d2.dimension_heights()
    mid = tuple(h // 2 for h in heights)
    nodes = {"bottom": (0,) * len(heights), "middle": mid, "top": heights}
    per_node = {}
    for name, node in nodes.items():
        r = ev.evaluate(node)
        per_node[name] = {"node": list(node), "seconds": r.seconds, "mean": r.mean,
                          "ci95": [r.ci_low, r.ci_high]}
    out["per_node"] = per_node
    out["max_node_s"] = max(v["seconds"] for v in per_node.values())

    # search 1: the paper's MaxSup (fresh evaluator, so every node is computed)
    ev1 = NodeEvaluator(d2, p2, k=k, max_sup=ms, n_bootstrap=args.bootstrap,
                        n_iterations=args.iterations, seed=args.seed)
    res1 = lola_search(d2, ev1)
    out["search_paper_maxsup"] = {"seconds": res1.seconds, "evaluated": res1.evaluated,
                                  "chosen": res1.chosen, "lattice_size": res1.lattice_size}
    # search 2: MaxSup = the middle node's mean, so the search has candidates to find
    ms2 = per_node["middle"]["mean"]
    ev2 = NodeEvaluator(d2, p2, k=k, max_sup=ms2, n_bootstrap=args.bootstrap,
                        n_iterations=args.iterations, seed=args.seed)
    res2 = lola_search(d2, ev2)
    out["search_mid_maxsup"] = {"max_sup": ms2, "seconds": res2.seconds,
                                "evaluated": res2.evaluated, "chosen": res2.chosen,
                                "k_minimal": len(res2.candidates),
                                "mean_node_s": res2.seconds / max(res2.evaluated, 1)}
    attack_node = res2.chosen or heights
    t = time.perf_counter()
    att = simulate_attack1(d1, d2, attack_node, p1, alpha=args.alpha,
                           iterations=args.attack_iterations, seed=args.seed)
    out["attack1"] = {"node": list(attack_node), "seconds": time.perf_counter() - t,
                      **att.as_dict()}
    out["peak_rss_gib"] = peak_rss_bytes() / GIB
    out["ratios_to_baseline"] = {
        "max_node": out["max_node_s"] / baseline,
        "search_mid_maxsup": res2.seconds / baseline,
        "attack1": out["attack1"]["seconds"] / baseline,
    }
    out["targets_met"] = {
        "node_le_5s": out["max_node_s"] <= 5,
        "search_le_300s": max(res1.seconds, res2.seconds) <= 300,
        "peak_le_6gib": out["peak_rss_gib"] <= 6,
    }
    json.dump(out, sys.stdout, indent=2, default=lambda o: list(o) if isinstance(o, tuple)
              else float(o))
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
