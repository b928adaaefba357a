"""LOLA (seed 001) at the paper's scale on calibrated synthetic claims; not a test.

Generates the paper's 113,000 patients (``dbt_deid.tools.synthetic.claims.generate_hhp``,
calibrated to
the paper and the public HHP release), preprocesses them as the paper (truncation per member and
year), and prints, beside the paper's published values and as ratios to them:

* the released data's counts (claims, median and most claims per patient, truncated patients);
* at the paper's released node (Table 5): the estimated share of high-risk patients with its
  95% interval (pooled bootstrap, ``--pool-size`` draws; the paper's node met MaxSup 0.8%),
  simulated attack 1 (paper: 0.84%) and attack 2 against the illustrative population (paper:
  0.0005%);
* the LOLA search at the paper's MaxSup (time, nodes evaluated, the chosen node or the relax
  message), and at the MaxSup the middle node meets, so that the search walks the lattice;
* diagnostics of what drives the share at the paper's node: the demographics alone (exact), age
  and sex alone, one value per claim QI (p_max 1), each claim QI alone, and k = 2 and 3;
* ``readings``: the high-risk share and attack 1 at the paper's node under each reading of the
  adversary's knowledge the paper leaves open (``dbt_deid.longitudinal.adversary``): the
  reconstruction (default), the literal Table 2 reading, and the reconstruction with one choice
  changed at a time (DaysInHospital known, each power function, each matching);
* the repetition figures at the paper's node (``dbt_deid.longitudinal.repetition``), to compare
  with ``bench/bench_lola_hhp.py`` on the real release.

``--model literal`` runs the main figures under the literal reading instead of the
reconstruction.

Times are also printed as ratios to a baseline measured in the same run (one pandas groupby of
the released claims by member). Keep runs under ~10 minutes; run with nice.

    nice -n 10 .venv/bin/python bench/bench_lola.py [--patients 113000] [--seed 0]
        [--pool-size 100000] [--attack-iterations 10000] [--no-diagnostics]
        [--model reconstructed|literal] [--no-readings]
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time

import numpy as np
import pandas as pd

from dbt_deid.longitudinal import calibration as cal
from dbt_deid.longitudinal.adversary import LITERAL, AdversaryModel, reconstructed
from dbt_deid.longitudinal.attack import simulate_attack1
from dbt_deid.longitudinal.bootstrap import (
    DEFAULT_POOL,
    NodeEvaluator,
    k_for_sample,
    max_sup_from_risk_exposure,
    power_matrix,
)
from dbt_deid.longitudinal.hierarchies import default_hierarchies, generalize
from dbt_deid.longitudinal.repetition import repetition_stats
from dbt_deid.longitudinal.search import lola_search, relax_message
from dbt_deid.tools.longitudinal_demo import attack2, prepare

GIB = 1024**3


def peak_rss_gib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / GIB  # Linux: KiB


def versus(ours: float, paper: float) -> dict[str, float | None]:
    return {"ours": round(float(ours), 6), "paper": paper,
            "ratio": round(float(ours) / paper, 3) if paper else None}


def readings(prep, node: tuple[int, ...], k: int, ms: float,
             args: argparse.Namespace) -> dict[str, object]:
    """High-risk share and attack 1 at ``node`` under each reading of the adversary's knowledge
    (the reconstruction with one choice changed at a time, and the literal reading)."""
    d1, d2 = prep.d1, prep.d2
    demo = d2.spec.demographic_qis
    base = reconstructed(demo)
    cases = {
        "reconstruction": base,
        "literal_table2": LITERAL,
        "dih_known": AdversaryModel(None, base.power_function, base.matching),
        "one_dih_year_known": AdversaryModel(("age", "sex", "dih_y2"), base.power_function,
                                             base.matching),
    }
    # log_diversity equals the reconstruction at p_max 5 (they differ above it: Table 7 bench)
    cases["power_claims"] = AdversaryModel(base.known_demographic_qis, "claims", base.matching)
    for m in ("set", "multiset"):
        cases[f"matching_{m}"] = AdversaryModel(base.known_demographic_qis, base.power_function, m)
    powers: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    out: dict[str, object] = {}
    for name, model in cases.items():
        fn = model.power_function
        if fn not in powers:
            powers[fn] = (power_matrix(d2, None, prep.pre.claims, 5, fn),
                          power_matrix(d1, None, prep.pre.claims_all, 5, fn))
        p2, p1 = powers[fn]
        ev = NodeEvaluator(d2, p2, k=k, max_sup=ms, pool_size=args.pool_size, seed=args.seed,
                           model=model)
        res = ev.evaluate(node)
        att = simulate_attack1(d1, d2, node, p1, alpha=args.alpha,
                               iterations=args.attack_iterations, seed=args.seed, model=model)
        out[name] = {"known": list(model.known(demo)), "power_function": fn,
                     "matching": model.matching,
                     "high_risk_share": round(res.mean, 6), "passes_max_sup": res.candidate,
                     "demographics_alone": round(ev.demographic_share(node), 6),
                     "attack1": round(att.success_rate, 6),
                     "attack1_expected": round(att.expected_rate, 6)}
    return out


def common_options(ap: argparse.ArgumentParser) -> None:
    """The options this script shares with ``bench_lola_hhp.py``."""
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--pool-size", type=int, default=DEFAULT_POOL)
    ap.add_argument("--attack-iterations", type=int, default=10_000)
    ap.add_argument("--tau", type=float, default=0.05)
    ap.add_argument("--alpha", type=float, default=cal.SAMPLING_FRACTION)
    ap.add_argument("--no-readings", action="store_true")
    ap.add_argument("--usual-visit-share", type=float, default=cal.USUAL_VISIT_SHARE,
                    help="the generator's share of usual visits (calibration.USUAL_VISIT_SHARE;"
                         " USUAL_VISIT_SHARE_FITTED fits the real providers per member)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--patients", type=int, default=cal.PAPER_PATIENTS)
    common_options(ap)
    ap.add_argument("--no-diagnostics", action="store_true")
    ap.add_argument("--no-search", action="store_true",
                    help="skip the two LOLA searches (the paper's node figures and readings only)")
    ap.add_argument("--model", choices=("reconstructed", "literal"), default="reconstructed")
    args = ap.parse_args(argv)
    cal.USUAL_VISIT_SHARE = args.usual_visit_share
    t_all = time.perf_counter()
    from dbt_deid.longitudinal.encoding import DEFAULT_DEMOGRAPHIC_QIS

    model = reconstructed(DEFAULT_DEMOGRAPHIC_QIS) if args.model == "reconstructed" else LITERAL
    prep = prepare(args.patients, args.seed, power_function=model.power_function)
    pre, d1, d2 = prep.pre, prep.d1, prep.d2
    out: dict[str, object] = {"patients": args.patients, "seed": args.seed,
                              "timings_s": {k: round(v, 1) for k, v in prep.timings.items()}}
    t = time.perf_counter()
    per = pre.claims.groupby("member_id", sort=False).size()
    baseline = time.perf_counter() - t
    scale = args.patients / cal.PAPER_PATIENTS
    trunc = pre.reports[-1]
    out["data"] = {
        "claims_released": versus(len(pre.claims), cal.PAPER_CLAIMS * scale),
        "median_claims": versus(per.median(), cal.PAPER_MEDIAN_CLAIMS),
        "max_claims": versus(per.max(), cal.PAPER_MAX_CLAIMS),
        "patients_truncated": versus(trunc.changed["patients_truncated"],
                                     cal.PAPER_TRUNCATED_PATIENTS * scale),
    }
    k = k_for_sample(args.tau, args.alpha)
    ms = max_sup_from_risk_exposure(args.tau)
    node = tuple(cal.TABLE5_LEVELS[d] for d in d2.spec.dimension_names)
    out["settings"] = {"tau": args.tau, "alpha": round(args.alpha, 4), "k": k, "max_sup": ms,
                       "p_max": 5, "pool_size": args.pool_size, "paper_node": list(node),
                       "usual_visit_share": cal.USUAL_VISIT_SHARE,
                       "adversary": {"model": args.model,
                                     "known_demographic_qis": list(model.known(
                                         d2.spec.demographic_qis)),
                                     "power_function": model.power_function,
                                     "matching": model.matching}}

    t = time.perf_counter()
    ev = NodeEvaluator(d2, prep.power_d2, k=k, max_sup=ms, pool_size=args.pool_size,
                       seed=args.seed, model=model)
    draw_s = time.perf_counter() - t
    res = ev.evaluate(node)
    out["paper_node"] = {
        "high_risk_share": {**versus(res.mean, cal.PAPER_MAX_SUP),
                            "ci95": [round(res.ci_low, 6), round(res.ci_high, 6)],
                            "note": "paper: its node met MaxSup 0.8%, the share itself is not"
                                    " published"},
        "node_seconds": round(res.seconds, 2), "draw_pool_seconds": round(draw_s, 2),
    }
    t = time.perf_counter()
    att = simulate_attack1(d1, d2, node, prep.power_d1, alpha=args.alpha,
                           iterations=args.attack_iterations, seed=args.seed, model=model)
    out["paper_node"]["attack1"] = {**versus(att.success_rate, cal.PAPER_ATTACK1),
                                    "expected_rate": round(att.expected_rate, 6),
                                    "median_matching_set": att.median_matching_set,
                                    "seconds": round(time.perf_counter() - t, 2)}
    a2 = attack2(pre.patients, node, d2.spec.levels(node))
    out["paper_node"]["attack2"] = {**versus(a2["risk"], cal.PAPER_ATTACK2),
                                    "population": "illustrative (not census figures)"}

    if args.no_search:
        return finish(out, prep, node, k, ms, ev, args, baseline, t_all)
    ev_search = NodeEvaluator(d2, prep.power_d2, k=k, max_sup=ms, pool_size=args.pool_size,
                              seed=args.seed, model=model)
    result = lola_search(d2, ev_search)
    top = tuple(d2.dimension_heights())
    search: dict[str, object] = {"seconds": round(result.seconds, 1),
                                 "evaluated": result.evaluated,
                                 "lattice_size": result.lattice_size,
                                 "chosen": None if result.chosen is None else list(result.chosen),
                                 "ratio_to_baseline": round(result.seconds / baseline, 1)}
    if result.chosen is None:
        search["message"] = relax_message(ev_search, top, d2.spec.dimension_names,
                                          alpha=args.alpha, p_max=5)
    out["search_at_paper_max_sup"] = search
    # a MaxSup the middle node meets, so that the search walks the lattice (its time is the
    # search cost; the paper's MaxSup stops at the top node here)
    mid = tuple(hh // 2 for hh in top)
    ms_mid = ev_search.evaluate(mid).mean
    ms_mid = max(ms_mid, ms)
    ev_walk = NodeEvaluator(d2, prep.power_d2, k=k, max_sup=ms_mid, pool_size=args.pool_size,
                            seed=args.seed, model=model)
    walk = lola_search(d2, ev_walk)
    out["search_walking_the_lattice"] = {
        "max_sup": round(ms_mid, 6), "seconds": round(walk.seconds, 1),
        "evaluated": walk.evaluated, "k_minimal": len(walk.candidates),
        "chosen": None if walk.chosen is None else list(walk.chosen),
        "mean_node_s": round(walk.seconds / max(walk.evaluated, 1), 2),
        "ratio_to_baseline": round(walk.seconds / baseline, 1)}

    return finish(out, prep, node, k, ms, ev, args, baseline, t_all)


def finish(out: dict, prep, node: tuple[int, ...], k: int, ms: float, ev: NodeEvaluator,
           args: argparse.Namespace, baseline: float, t_all: float) -> int:
    """Diagnostics and readings at the paper's node, then print."""
    d2, pre = prep.d2, prep.pre
    model = ev.model
    if not args.no_diagnostics:
        diag: dict[str, object] = {}
        diag["demographics_alone"] = round(ev.demographic_share(node), 6)
        h = default_hierarchies()
        p = pre.patients
        age = generalize(p["age"], h["age"], cal.TABLE5_LEVELS["age"]).astype(object)
        cls = pd.DataFrame({"age": age.where(age.notna(), "?"),
                            "sex": p["sex"].astype(object).where(p["sex"].notna(), "?")})
        size = cls.groupby(["age", "sex"])["age"].transform("size")
        diag["age_and_sex_alone"] = round(float((size < k).mean()), 6)
        below = ev.shares_below(node, [2, 3])
        diag["k_2"], diag["k_3"] = round(below[2], 6), round(below[3], 6)
        one = NodeEvaluator(d2, np.minimum(prep.power_d2, 1), k=k, max_sup=ms,
                            pool_size=args.pool_size, seed=args.seed, model=model)
        diag["p_max_1"] = round(one.evaluate(node).mean, 6)
        for j, q in enumerate(d2.spec.claim_qis):
            pw = np.zeros_like(prep.power_d2)
            pw[:, j] = prep.power_d2[:, j]
            only = NodeEvaluator(d2, pw, k=k, max_sup=ms, pool_size=args.pool_size,
                                 seed=args.seed, model=model)
            diag[f"only_{q}"] = round(only.evaluate(node).mean, 6)
        dih = {}
        for y in ("dih_y2", "dih_y3"):
            v = p[y].dropna()
            dih[y] = {"reported": int(len(v)), "share_above_0": round(float((v > 0).mean()), 4)}
        both = int(((p["dih_y2"] > 0) & (p["dih_y3"] > 0)).sum())
        dih["patients_in_hospital_both_years"] = both
        diag["days_in_hospital"] = dih
        diag["mean_power_by_qi"] = {q: round(float(prep.power_d2[:, j].mean()), 2)
                                    for j, q in enumerate(d2.spec.claim_qis)}
        out["diagnostics_at_paper_node"] = diag
    out["repetition_at_paper_node"] = repetition_stats(
        d2, node, known=model.known(d2.spec.demographic_qis), k=k)
    if not args.no_readings:
        out["readings"] = readings(prep, node, k, ms, args)
    out["baseline_groupby_s"] = round(baseline, 3)
    return emit(out, t_all)


def emit(out: dict, t_all: float) -> int:
    """Add the total time and peak memory to ``out`` and print it as JSON."""
    out["total_s"] = round(time.perf_counter() - t_all, 1)
    out["peak_rss_gib"] = round(peak_rss_gib(), 2)
    json.dump(out, sys.stdout, indent=2, default=lambda o: list(o) if isinstance(o, tuple)
              else float(o))
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
